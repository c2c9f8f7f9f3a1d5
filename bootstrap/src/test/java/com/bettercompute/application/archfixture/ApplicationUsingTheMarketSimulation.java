package com.bettercompute.application.archfixture;

/** Breaks "no product package depends on a simulator" on purpose, for ArchitectureTest. Test code only. */
public class ApplicationUsingTheMarketSimulation {
    int simulate(String[] args) {
        return com.bettercompute.bootstrap.market.SimulateMarketCommand.run(args);
    }
}
