"""Bad inputs of the master: unsafe FMU archives are rejected before extraction, a corrupted
checkpoint is reported (not used), malformed scenarios name the key."""
import stat
import subprocess
import sys
import zipfile

import pytest

from wctest import ROOT
from wearcosim.fmi.check import validate
from wearcosim.fmi.runner import safe_extract


def _zip(path, members):
    with zipfile.ZipFile(path, "w") as z:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.external_attr = mode << 16
            z.writestr(info, data)
    return path


@pytest.mark.parametrize("member, mode", [
    ("../evil.txt", None),
    ("/etc/evil.txt", None),
    ("binaries/../../evil.txt", None),
    ("binaries/link", stat.S_IFLNK | 0o777),
])
def test_unsafe_archives_are_rejected_before_extraction(tmp_path, member, mode):
    fmu = _zip(tmp_path / "bad.fmu", [("modelDescription.xml", "<x/>", None), (member, "payload", mode)])
    dest = tmp_path / "dest"
    with pytest.raises(ValueError, match="unsafe path|symbolic link"):
        safe_extract(fmu, dest)
    assert not dest.exists()
    assert not (tmp_path / "evil.txt").exists()
    if mode is None:
        assert any("unsafe path" in p for p in validate(fmu))


def test_corrupted_checkpoint_is_reported(tmp_path):
    """wearcosim run --resume with a damaged checkpoint: non-zero exit, a message naming the
    checkpoint, no silent restart.  The checkpoint comes from an interrupted run (the FMU fails
    at t = 0.3 s, in cycle 3): a completed run removes its checkpoint."""
    from wearcosim.export.build import build_fmu
    import tomli_w
    fix = ROOT / "tests" / "master" / "fixtures" / "pressed"
    fmu = build_fmu("PressedJournal", fix, tmp_path, path=fix / "PressedJournal.mo").fmu
    toml = tmp_path / "s.toml"
    toml.write_text(tomli_w.dumps({"name": "ck", "fmu": {"path": str(fmu)}, "start": {"tFail": 0.3},
                                   "wear": {"k": 1e-4, "hardness": 1e9, "cycles": 5, "omega": 50.0},
                                   "run": {"steps_per_cycle": 50}}))
    env = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-m", "wearcosim.cli", "run", str(toml), "--out", str(tmp_path / "out"), "--quiet"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "ck.ckpt" in r.stderr, r.stderr
    ck = tmp_path / "out" / "ck.ckpt"
    raw = bytearray(ck.read_bytes())
    raw[len(raw) // 2] ^= 0x55
    ck.write_bytes(bytes(raw))
    r = subprocess.run(cmd + ["--resume"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "corrupted" in r.stderr and "ck.ckpt" in r.stderr and "Traceback" not in r.stderr
