package com.bettercompute.adapters.gke.archfixture;

/** Breaks "no product package depends on a simulator" on purpose, for ArchitectureTest. Test code only. */
public class GkeUsingTheSimulator {
    com.bettercompute.adapters.gke.simulator.GkeSimulator simulator;
}
