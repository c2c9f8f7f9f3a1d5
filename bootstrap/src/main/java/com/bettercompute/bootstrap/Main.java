package com.bettercompute.bootstrap;

import java.util.Arrays;

public final class Main {
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("gke-simulator")) {
            com.bettercompute.bootstrap.gke.GkeSimulatorCommand.run(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
    }
}
