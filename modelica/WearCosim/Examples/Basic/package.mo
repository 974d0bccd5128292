within WearCosim.Examples;
package Basic "Small reference models that exercise the FMU exporter"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html><p>Reference models checked against
<code>rumoca</code>'s simulator and analytic solutions: bouncing ball, one-sided contact
oscillator, journal in a bearing with a sector wear array, matrix system, Van der Pol.</p></html>"));
end Basic;
