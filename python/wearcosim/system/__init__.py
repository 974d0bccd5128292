"""Systems of FMUs: SSP description (:mod:`.model`, :mod:`.ssp`), checks (:mod:`.validate`),
the strongly coupled Model-Exchange container (:mod:`.container`) and the Co-Simulation
master (:mod:`.cosim`)."""
