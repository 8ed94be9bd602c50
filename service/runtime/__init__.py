"""Running the service: configuration, processes, supervision, health and metrics."""
