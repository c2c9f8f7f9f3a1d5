package com.bettercompute.bootstrap;

import com.bettercompute.bootstrap.gke.GkeSimulatorCommand;
import com.bettercompute.bootstrap.market.SimulateMarketCommand;

import java.util.Arrays;

/** The one entry point: {@code serve} (the default) and the other sub-commands of {@code API.md}. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        String command = args.length > 0 && !args[0].startsWith("-") ? args[0] : "serve";
        String[] rest = args.length > 0 && !args[0].startsWith("-") ? Arrays.copyOfRange(args, 1, args.length) : args;
        switch (command) {
            case "serve" -> {
                // it returns once stopped (0) or at once on bad options (2); the exit stops what is left
                System.exit(ServeCommand.run(rest, System.out, System.err, System.getenv()));
            }
            case "gke-simulator" -> GkeSimulatorCommand.run(rest);
            case "simulate-market" -> System.exit(SimulateMarketCommand.run(rest));
            default -> {
                System.err.println("better-compute: unknown sub-command '" + command + "'; sub-commands: serve, gke-simulator, simulate-market");
                System.exit(2);
            }
        }
    }
}
