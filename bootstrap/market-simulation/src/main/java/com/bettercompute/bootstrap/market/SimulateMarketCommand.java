package com.bettercompute.bootstrap.market;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code better-compute simulate-market SCENARIO.yaml [--out DIR]}: runs a market scenario on the
 * real engine in virtual time and writes a report to DIR (default {@code ./market-report}).
 */
public final class SimulateMarketCommand {
    static final String USAGE = """
            usage: java -jar better-compute.jar simulate-market SCENARIO.yaml [--out DIR]

            Runs a GPU market scenario (pools, tenants and clusters, jobs, limit and reserve changes,
            supply changes, node failures) on the market engine in virtual time, deterministically for
            the scenario's seed, and writes to DIR (default ./market-report):
              summary.txt, summary.json  utilization, revenue, waits, reclaims, price quantiles
              report.html                charts of price, supply, demand, granted and queue over time
              events.csv                 every grant, notice, reclaim, rescind and revocation, with prices
              jobs.csv, feed.csv         per job, and the market feed per pool and tick
            The scenario format is documented in docs/operators/market-simulation.md. An example ships in the jar:
              simulate-market classpath:market/example-scenario.yaml

            exit codes: 0 done, 2 bad arguments or scenario, 1 unexpected failure
            """;

    private SimulateMarketCommand() {
    }

    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        String scenarioFile = null;
        Path outDir = Path.of("market-report");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                out.print(USAGE);
                return 0;
            } else if (a.equals("--out")) {
                if (i + 1 >= args.length) {
                    err.println("simulate-market: --out needs a directory");
                    err.print(USAGE);
                    return 2;
                }
                outDir = Path.of(args[++i]);
            } else if (a.startsWith("--out=")) {
                outDir = Path.of(a.substring("--out=".length()));
            } else if (a.startsWith("-")) {
                err.println("simulate-market: unknown option " + a);
                err.print(USAGE);
                return 2;
            } else if (scenarioFile == null) {
                scenarioFile = a;
            } else {
                err.println("simulate-market: one scenario file only, got " + scenarioFile + " and " + a);
                return 2;
            }
        }
        if (scenarioFile == null) {
            err.println("simulate-market: a scenario file is required");
            err.print(USAGE);
            return 2;
        }
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
