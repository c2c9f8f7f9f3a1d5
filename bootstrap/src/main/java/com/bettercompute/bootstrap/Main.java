package com.bettercompute.bootstrap;

import java.util.Arrays;

/** The one entry point: {@code serve} (the default) and the other sub-commands of {@code API.md}. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        String command = args.length > 0 && !args[0].startsWith("-") ? args[0] : "serve";
        String[] rest = args.length > 0 && !args[0].startsWith("-") ? Arrays.copyOfRange(args, 1, args.length) : args;
        int code = switch (command) {
            case "serve" -> ServeCommand.run(rest, System.out, System.err, System.getenv());
            default -> {
                System.err.println("better-compute: unknown sub-command '" + command + "'; sub-commands: serve");
                yield 2;
            }
        };
        if (code != 0 || !command.equals("serve")) {
            System.exit(code);
        }
    }
}
