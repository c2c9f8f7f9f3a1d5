package com.bettercompute.bootstrap;

import com.bettercompute.bootstrap.market.SimulateMarketCommand;
import java.util.Arrays;

public final class Main {
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("simulate-market")) {
            System.exit(SimulateMarketCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
    }
}
