"""Tournaments: planned, scheduled and played. `coordinator` plans a run (every check before it
exists) and plays it (the coordinator loop); `schedule` makes its line-ups, rotations and
MatchSpecs; `runner` plays one match in a worker, through the referee, with the fault play-out;
`backends` are the executors that run the runner (serial, process pool, Dask); `checks` is
`arena check-agent`, an agent's check matches before a tournament."""
