"""micrograd.viz: drawing a graph, stepping through backward, the player in a browser, the bundled dot."""
