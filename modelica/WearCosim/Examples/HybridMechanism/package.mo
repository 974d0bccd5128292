within WearCosim.Examples;
package HybridMechanism "3-CPaR&R1R2 hybrid mechanism with a clearance at D3: the studies of seed 002"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html><p>Examples of <a href=\"modelica://WearCosim.Mechanisms.HybridMechanism3CPaR\">HybridMechanism3CPaR</a>
reproducing the cases of seed 002 section 3: dry at &omega; = 4&pi;, 8&pi;, 16&pi;, 32&pi; rad/s (c = 0.25 mm), dry at
&omega; = 30&pi; with c = 0.15-0.45 mm, dry vs lubricated at c = 0.20 mm, &omega; = 7&pi;, and the ideal twin. Each runs two
drive periods (the wear master repeats cycles). Top-level wear interface as in
<a href=\"modelica://WearCosim.Interfaces\">Interfaces</a>.</p></html>"));
end HybridMechanism;
