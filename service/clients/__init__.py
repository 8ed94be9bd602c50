"""Command-line clients: the tablestream command, the terminal player, audit."""
