package com.bettercompute.bootstrap.market;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code better-compute simulate-market SCENARIO.yaml [--out DIR]}: runs a market scenario on the
 * real engine in virtual time and writes a report to DIR (default {@code ./market-report}).
 */
public final class SimulateMarketCommand {
    private SimulateMarketCommand() {
    }

    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        SimulateMarketOptions.Parsed parsed;
        try {
            parsed = SimulateMarketOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("simulate-market: " + e.getMessage());
            err.print(SimulateMarketOptions.usage());
            return 2;
        }
        if (parsed instanceof SimulateMarketOptions.Help help) {
            out.print(help.usage());
            return 0;
        }
        SimulateMarketOptions.Run run = (SimulateMarketOptions.Run) parsed;
        String scenarioFile = run.scenario();
        Path outDir = run.out();
        try {
            Scenario scenario = ScenarioLoader.load(scenarioFile);
            SimulationResult result = MarketSimulation.run(scenario);
            MarketSummary summary = MarketSummary.of(result);
            ReportWriter.write(result, summary, outDir);
            out.print(ReportWriter.text(summary));
            out.println("report: " + outDir.toAbsolutePath().normalize().resolve("report.html"));
            return 0;
        } catch (ScenarioException e) {
            err.println("simulate-market: " + scenarioFile + ": " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            err.println("simulate-market: failed: " + e);
            e.printStackTrace(err);
            return 1;
        }
    }
}
