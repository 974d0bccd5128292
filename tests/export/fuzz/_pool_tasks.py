"""Tasks for test_pool (a module of their own: spawned workers import them by name)."""
import os
import time


def task(x):
    if x == "die":
        os._exit(3)
    if x == "hang":
        time.sleep(3600)
    if x == "raise":
        raise ValueError("bad task")
    return x * 2


def failure(task, how, detail):
    return (task, how)
