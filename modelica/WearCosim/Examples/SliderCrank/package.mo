within WearCosim.Examples;
package SliderCrank "Slider-crank benchmark with a revolute clearance joint: dry, lubricated, ideal"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html><p>Examples of <a href=\"modelica://WearCosim.Mechanisms.SliderCrankClearance\">SliderCrankClearance</a>
(docs/physics/mechanisms.md) and its ideal twin. The clearance examples keep <code>wearDepth[nSectors]</code> as top-level
inputs (unworn: 0) and the wear-interface outputs at the top level.</p></html>"));
end SliderCrank;
