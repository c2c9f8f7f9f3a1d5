package com.bettercompute.bootstrap;

import com.bettercompute.bootstrap.gke.GkeSimulatorCommand;
import com.bettercompute.bootstrap.market.SimulateMarketCommand;

import org.slf4j.LoggerFactory;

import java.util.Arrays;

/** The one entry point: {@code serve} (the default) and the other sub-commands (docs/operators/options.md). */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        String command = args.length > 0 && !args[0].startsWith("-") ? args[0] : "serve";
        String[] rest = args.length > 0 && !args[0].startsWith("-") ? Arrays.copyOfRange(args, 1, args.length) : args;
        switch (command) {
            case "serve" -> {
                // it returns once stopped (0) or at once on bad options (2); the exit stops what is left
                int status;
                try {
                    status = ServeCommand.run(rest, System.out, System.err, System.getenv());
                } catch (RuntimeException | Error e) {
                    // an error nobody foresaw (a start that failed half-way): the process ends with it, where an
                    // uncaught exception would leave it running, silent, on the threads it had already started
                    LoggerFactory.getLogger(Main.class).error("better-compute stopped on an unexpected error", e);
                    status = 1;
                }
                System.exit(status);
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
