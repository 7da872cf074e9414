"""Studies that reproduce the seeds' experiments: each runs a grid of simulations,
prints tables in the seed's form next to the seed's published figures, and writes
CSV and plots."""
