"""Quick start of the Python API: build the demo mechanism's FMU, run two wear cycles of the
README demo, look at the result, write its figures.  Run from anywhere:

    python examples/quickstart.py [OUT]        # OUT defaults to ./quickstart
"""
import sys
from pathlib import Path

import wearcosim as wc

HERE = Path(__file__).resolve().parent
out = Path(sys.argv[1] if len(sys.argv) > 1 else "quickstart")

# the FMU of a library example (Modelica -> FMI 2.0 ME + CS, with its embedded solver)
fmu = wc.build("WearCosim.Examples.HybridMechanism.DrySpeed32pi", out=out / "fmus")
print("built", fmu)

# the README's demo scenario, shortened: 2 wear cycles, each standing for 2500 real ones
sc = wc.Scenario.load(HERE.parent / "cosim" / "demo_hybrid_dry_32pi.toml")
sc = sc.replace(name="quickstart", fmu={"path": str(fmu)}, wear={"cycles": 2})
res = wc.run(sc, out=out)
print(res)

peak = res.final.argmax()
print(f"peak wear {res.final[peak] * 1e6:.3f} um at {res.sector_centres[peak] * 180 / 3.141592653589793:.0f} deg "
      f"after {res.real_cycles:.0f} real cycles")
for fig in res.plot():
    print("figure", fig)
