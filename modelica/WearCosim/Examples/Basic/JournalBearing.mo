within WearCosim.Examples.Basic;
model JournalBearing "2-D journal in a worn bearing with a sector wear-depth array (atan2 + user function)"
  extends WearCosim.Icons.Example;
  import SI = WearCosim.Units.SI;
  parameter Integer nSectors = 12 "Number of angular wear sectors";
  parameter SI.Mass m = 0.5 "Journal mass";
  parameter SI.Length c = 1e-4 "Radial clearance";
  parameter SI.HertzStiffness K = 1e10 "Contact stiffness";
  parameter SI.TranslationalDampingConstant d = 50 "Contact damping (active in contact)";
  parameter SI.Force Fx = 0 "Constant external force, x";
  parameter SI.Force Fy = -20 "Constant external force, y";
  parameter SI.Length h[nSectors] = {1e-5*(1 + cos(2*3.141592653589793*(i - 1)/nSectors)) for i in 1:nSectors} "Wear depth per sector";
  SI.Position ex(start = 0, fixed = true, nominal = 1e-4) "Journal centre x relative to the bearing centre";
  SI.Position ey(start = 0, fixed = true, nominal = 1e-4) "Journal centre y relative to the bearing centre";
  SI.Velocity vx(start = 1e-3, fixed = true, nominal = 1e-2) "Velocity x";
  SI.Velocity vy(start = 0, fixed = true, nominal = 1e-2) "Velocity y";
  SI.Length e "Eccentricity";
  SI.Angle theta "Contact angle";
  SI.Length cLocal "Local clearance c + h(theta)";
  SI.Length delta "Penetration";
  SI.Force Fn "Normal contact force";
  SI.Velocity vn "Radial velocity";
equation
  e = sqrt(ex^2 + ey^2 + 1e-24);
  theta = atan2(ey, ex);
  cLocal = c + WearCosim.Examples.Basic.Functions.sectorInterp(h, theta);
  delta = e - cLocal;
  vn = (ex*vx + ey*vy)/e;
  Fn = if delta > 0 then max(0, K*max(delta, 0)^1.5 + d*vn) else 0;
  der(ex) = vx;
  der(ey) = vy;
  m*der(vx) = Fx - Fn*ex/e;
  m*der(vy) = Fy - Fn*ey/e;
  annotation (experiment(StopTime = 0.2, Interval = 1e-4, Tolerance = 1e-8),
    Documentation(info = "<html><p>Reference model for the exporter: a journal pressed by a
constant force into a bearing whose local clearance c + h(&theta;) is interpolated
periodically from a sector wear array by a user function.  The eccentricity is regularised
by 1e-24 m<sup>2</sup> under the square root so that the contact direction is defined at
the centre.</p></html>"));
end JournalBearing;
