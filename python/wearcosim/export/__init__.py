"""Modelica -> FMI 2.0 FMU exporter (rumoca front end, CasADi middle end, shared C runtime).

Passes, one module each, with pure signatures::

    frontend.load(path, model)      -> ir.Model
    dae.build(ir.Model)             -> dae.Dae
    causalize.causalize(Dae)        -> causalize.Causal
    codegen.build_functions(Causal) -> codegen.Generated  (render_c / render_xml)
    package.*                       -> .fmu

``build.build_fmu`` runs them all.
"""
from .errors import ExportError

__all__ = ["ExportError"]
