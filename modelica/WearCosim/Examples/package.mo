within WearCosim;
package Examples "Runnable examples, each exported as an FMU by wearcosim build"
  extends WearCosim.Icons.Package;
  annotation (Documentation(info = "<html><p>Examples with <code>experiment</code> annotations.
<code>Basic</code> holds small reference models that exercise the exporter
(events, when/reinit, matrices, functions).</p></html>"));
end Examples;
