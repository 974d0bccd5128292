"""Fixtures of the model tests (helpers live in rumoca_sim.py)."""
import pytest

from rumoca_sim import simulate


@pytest.fixture
def sim():
    return simulate
