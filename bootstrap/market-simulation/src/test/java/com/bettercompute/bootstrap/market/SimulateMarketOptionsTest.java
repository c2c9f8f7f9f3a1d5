package com.bettercompute.bootstrap.market;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How {@code simulate-market} reads its command line. */
class SimulateMarketOptionsTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "the scenario alone writes to ./market-report; s.yaml;                    s.yaml; market-report",
        "--out DIR;                                    s.yaml --out /tmp/r;       s.yaml; /tmp/r",
        "--out=DIR;                                    s.yaml --out=/tmp/r;       s.yaml; /tmp/r",
        "the option before the scenario;               --out /tmp/r s.yaml;       s.yaml; /tmp/r",
        "a scenario in the jar;                        classpath:market/x.yaml;   classpath:market/x.yaml; market-report"})
    void aRunNamesItsScenarioAndWhereTheReportGoes(String what, String line, String scenario, String out) {
        SimulateMarketOptions.Parsed parsed = SimulateMarketOptions.parse(line.split(" "));

        assertThat(parsed).isEqualTo(new SimulateMarketOptions.Run(scenario, Path.of(out)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "no scenario;            '';                   a scenario file is required",
        "only an option;         --out /tmp/r;         a scenario file is required",
        "--out without its DIR;  s.yaml --out;         --out needs a directory",
        "an unknown option;      --bogus s.yaml;       unknown option --bogus",
        "an unknown =option;     s.yaml --bogus=1;     unknown option --bogus",
        "two scenarios;          a.yaml b.yaml;        'one scenario file only, got a.yaml and b.yaml'"})
    void aBadCommandLineIsRefusedNamingWhatIsWrong(String what, String line, String refusal) {
        String[] args = line.isEmpty() ? new String[0] : line.split(" ");

        assertThatThrownBy(() -> SimulateMarketOptions.parse(args))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(refusal);
    }

    @Test
    void helpShowsTheSynopsisTheReportsFilesTheOptionsAndTheExitCodes() {
        SimulateMarketOptions.Parsed parsed = SimulateMarketOptions.parse("--help");

        assertThat(parsed).isInstanceOf(SimulateMarketOptions.Help.class);
        String usage = ((SimulateMarketOptions.Help) parsed).usage();
        assertThat(usage).startsWith("usage: java -jar better-compute.jar simulate-market SCENARIO.yaml [--out DIR]")
                .contains("summary.txt, summary.json", "report.html", "events.csv", "jobs.csv, feed.csv",
                        "simulate-market classpath:market/example-scenario.yaml", "SCENARIO.yaml", "--out=DIR",
                        "(default: market-report)", "-h, --help", "exit codes: 0 done, 2 bad arguments or scenario, 1 unexpected failure");
    }
}
