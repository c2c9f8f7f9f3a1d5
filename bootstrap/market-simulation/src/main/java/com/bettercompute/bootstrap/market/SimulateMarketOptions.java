package com.bettercompute.bootstrap.market;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;

/** The command line of {@code simulate-market}, read by picocli: a scenario file and {@code --out DIR} or {@code --out=DIR}. */
@Command(name = "simulate-market", usageHelpWidth = 120, sortOptions = false, synopsisHeading = "",
        customSynopsis = "usage: java -jar better-compute.jar simulate-market SCENARIO.yaml [--out DIR]%n",
        descriptionHeading = "",
        description = {
            "Runs a GPU market scenario (pools, tenants and clusters, jobs, limit and reserve changes,",
            "supply changes, node failures) on the market engine in virtual time, deterministically for",
            "the scenario's seed, and writes to DIR (default ./market-report):",
            "  summary.txt, summary.json  utilization, revenue, waits, reclaims, price quantiles",
            "  report.html                charts of price, supply, demand, granted and queue over time",
            "  events.csv                 every grant, notice, reclaim, rescind and revocation, with prices",
            "  jobs.csv, feed.csv         per job, and the market feed per pool and tick",
            "The scenario format is documented in docs/operators/market-simulation.md. An example ships in the jar:",
            "  simulate-market classpath:market/example-scenario.yaml"},
        parameterListHeading = "%n", optionListHeading = "",
        footerHeading = "%n", footer = "exit codes: 0 done, 2 bad arguments or scenario, 1 unexpected failure")
final class SimulateMarketOptions {
    @Parameters(index = "0", arity = "1", paramLabel = "SCENARIO.yaml",
            description = "the scenario: a file, or classpath:NAME for one in the jar")
    String scenario;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "market-report",
            description = "where the report is written (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** What a command line asks: the help, or a run of a scenario. */
    sealed interface Parsed permits Help, Run {
    }

    record Help(String usage) implements Parsed {
    }

    record Run(String scenario, Path out) implements Parsed {
    }

    /**
     * @throws IllegalArgumentException naming the option or argument that is wrong, and how
     */
    static Parsed parse(String... args) {
        SimulateMarketOptions options = new SimulateMarketOptions();
        CommandLine cli = new CommandLine(options);
        try {
            cli.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(refusal(e), e);
        }
        if (cli.isUsageHelpRequested()) {
            return new Help(usage());
        }
        return new Run(options.scenario, options.out);
    }

    static String usage() {
        return new CommandLine(new SimulateMarketOptions()).getUsageMessage();
    }

    private static String refusal(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            String first = unmatched.getUnmatched().get(0);
            return first.startsWith("-") ? "unknown option " + first.split("=", 2)[0]
                    : "one scenario file only, got " + ((SimulateMarketOptions) e.getCommandLine().getCommand()).scenario
                    + " and " + first;
        }
        if (e instanceof CommandLine.MissingParameterException missing && !missing.getMissing().isEmpty()) {
            return missing.getMissing().get(0) instanceof OptionSpec option
                    ? option.longestName() + " needs a directory" : "a scenario file is required";
        }
        return e.getMessage();
    }
}
