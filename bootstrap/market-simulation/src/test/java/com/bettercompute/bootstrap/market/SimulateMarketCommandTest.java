package com.bettercompute.bootstrap.market;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The simulator end to end: a small scenario whose report is checked against the market's rules by hand-computed numbers. */
class SimulateMarketCommandTest {
    /**
     * One pool of 4 nodes. acme's 4-node gang starts alone at 0s and clears at its own limit (2.00). At
     * 2h30m, outside its two-hour window, beta bids 3.00 for 2 nodes: acme no longer fits, gets one
     * minute's notice, is revoked at 2h31m and requeues; beta takes the nodes at 3.00. beta's job ends
     * at 3h31m, its hold ends then too, the idle grace lets the nodes go at 3h36m, and acme's requeued
     * gang takes all four at 2.00.
     */
    static final String SMALL = """
            name: outbid with notice
            seed: 3
            duration: 5h
            tick: 10s
            pools:
              - pool: lab/h100-8x
                gpusPerNode: 8
                nodes: 4
                reserve: "1.00"
            tenants:
              - id: acme
                credits: "10000"
                clusters:
                  - id: acme-c
                    limit: "2.00"
              - id: beta
                credits: "10000"
                clusters:
                  - id: beta-c
                    limit: "3.00"
            jobs:
              - id: a1
                at: 0s
                cluster: acme-c
                pool: lab/h100-8x
                gpus: 32
                duration: 10h
              - id: b1
                at: 2h30m
                cluster: beta-c
                pool: lab/h100-8x
                gpus: 16
                duration: 1h
            """;

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = SimulateMarketCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path scenario(String yaml) throws Exception {
        Path file = dir.resolve("scenario.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private static List<String[]> rows(Path csv, String event) throws Exception {
        return Files.readAllLines(csv).stream().skip(1).map(l -> l.split(",", -1)).filter(r -> r[2].equals(event))
                .toList();
    }

    @Test
    void theReportShowsWhoGotNodesAtWhatPriceAndWhoWasReclaimedWithHowMuchNotice() throws Exception {
        Path out = dir.resolve("report");
        Run r = run(scenario(SMALL).toString(), "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("reclaims: 1 with notice");

        Path events = out.resolve("events.csv");
        List<String[]> granted = rows(events, "NodeGranted");
        // time offset, job, price
        assertThat(granted).extracting(g -> g[1] + " " + g[5] + " " + g[8]).containsExactly(
                "0s a1 2.00", "0s a1 2.00", "0s a1 2.00", "0s a1 2.00",
                "2h31m b1 3.00", "2h31m b1 3.00",
                "3h36m a1 2.00", "3h36m a1 2.00", "3h36m a1 2.00", "3h36m a1 2.00");
        List<String[]> notices = rows(events, "PreemptionNoticed");
        assertThat(notices).hasSize(1);
        assertThat(notices.get(0)[1]).isEqualTo("2h30m");
        assertThat(notices.get(0)[5]).isEqualTo("a1");
        assertThat(notices.get(0)[8]).as("the price that outbid it").isEqualTo("3.00");
        assertThat(notices.get(0)[9]).isEqualTo("deadline 2026-01-05T02:31:00Z");
        assertThat(rows(events, "GangRevoked")).extracting(v -> v[1] + " " + v[9])
                .containsExactly("2h31m requeued as a1#2");
        assertThat(rows(events, "GangReclaimedAtOnce")).isEmpty();

        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertThat(summary.at("/reclaims/withNotice").asInt()).isEqualTo(1);
        assertThat(summary.at("/reclaims/revokedAtDeadline").asInt()).isEqualTo(1);
        assertThat(summary.at("/reclaims/atOnce").asInt()).isZero();
        assertThat(summary.at("/jobs/completed").asInt()).isEqualTo(1);
        assertThat(summary.at("/waits/count").asInt()).isEqualTo(2);
        assertThat(summary.at("/requeueWaits/maxMinutes").asDouble()).isEqualTo(65.0);
        // acme: 32 GPUs at 2.00 from 0s to 2h31m and from 3h36m to 5h; beta: 16 GPUs at 3.00 for 65 min
        double acme = 32 * 2.00 * (151 + 84) / 60.0;
        double beta = 16 * 3.00 * 65 / 60.0;
        assertThat(Double.parseDouble(summary.at("/revenueByTenantUsd/acme").asText())).isCloseTo(acme, within(0.01));
        assertThat(Double.parseDouble(summary.at("/revenueByTenantUsd/beta").asText())).isCloseTo(beta, within(0.01));
        assertThat(summary.at("/pools/0/price/max").asText()).isEqualTo("3.00");
        assertThat(summary.at("/pools/0/price/min").asText()).isEqualTo("2.00");

        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("<svg").contains("clearing price").contains("lab/h100-8x").contains("polyline");
        assertThat(Files.readString(out.resolve("summary.txt"))).contains("GPU utilization");
        assertThat(Files.readAllLines(out.resolve("feed.csv"))).hasSize(1 + 5 * 360 + 1);
    }

    @Test
    void theSameScenarioAndSeedGiveTheSameReport() throws Exception {
        String yaml = SMALL.replace("jobs:", """
                arrivals:
                  - cluster: beta-c
                    pool: lab/h100-8x
                    every: 20m
                    gpus: [8, 16]
                    duration: [10m, 3h]
                    limit: ["1.00", "4.00"]
                failures:
                  - pool: lab/h100-8x
                    every: 2h
                    repairAfter: 30m
                jobs:""");
        Path file = scenario(yaml);
        run(file.toString(), "--out", dir.resolve("one").toString());
        run(file.toString(), "--out", dir.resolve("two").toString());
        for (String name : List.of("events.csv", "jobs.csv", "feed.csv")) {
            assertThat(Files.readString(dir.resolve("two").resolve(name)))
                    .isEqualTo(Files.readString(dir.resolve("one").resolve(name)));
        }
        assertThat(Files.readAllLines(dir.resolve("one").resolve("jobs.csv")).size()).isGreaterThan(5);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "an unknown field          ; nodes: 4|nodez: 4                        ; unknown field \"nodez\"",
            "a job not in whole nodes  ; gpus: 16|gpus: 12                        ; 12 GPUs is neither under one node",
            "an unknown cluster        ; cluster: beta-c|cluster: gamma-c         ; no cluster gamma-c",
            "a bad duration            ; duration: 1h|duration: 1 hour            ; \"1 hour\" is not a duration",
            "a bad price               ; reserve: \"1.00\"|reserve: \"-1\"    ; pools[0]",
            "an unknown pool           ; pool: lab/h100-8x\\n    gpus: 32|pool: lab/b200\\n    gpus: 32 ; no pool lab/b200",
            "an unknown field, its line; nodes: 4|nodez: 4                        ; line 8: pools[0].nodez: unknown field",
            "too many nodes            ; nodes: 4|nodes: 2000000000               ; pools[0].nodes: 2000000000 is too many: at most 100000",
            "nodes beyond a number     ; nodes: 4|nodes: 99999999999              ; pools[0].nodes",
            "credits too large         ; credits: \"10000\"|credits: \"99999999999999999999\" ; tenants[0].credits: \"99999999999999999999\" is too large",
            "a price too large         ; limit: \"3.00\"|limit: \"200000\"     ; tenants[1].clusters[0].limit: 200000 is too large",
            "a bad decimal             ; limit: \"3.00\"|limit: \"3.0000001\"  ; has more than six decimals",
            "a negative ready delay    ; tick: 10s|tick: 10s\\nnodeReadyAfter: -5s ; nodeReadyAfter: \"-5s\" is not a duration"})
    void aBadScenarioFailsWithTheProblemNamed(String what, String replace, String expected) throws Exception {
        String[] fromTo = replace.trim().split("\\|");
        String yaml = SMALL.replace(fromTo[0].replace("\\n", "\n"), fromTo[1].replace("\\n", "\n"));
        assertThat(yaml).as("the test edits the scenario").isNotEqualTo(SMALL);
        Run r = run(scenario(yaml).toString(), "--out", dir.resolve("bad").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains(expected.trim());
        assertThat(dir.resolve("bad")).doesNotExist();
    }

    @Test
    void anUnknownFieldOnTheLastLineIsReportedAtThatLine() throws Exception {
        String yaml = SMALL + "bogus: 1\n";
        Run r = run(scenario(yaml).toString(), "--out", dir.resolve("bad").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("line " + yaml.lines().count() + ": bogus: unknown field \"bogus\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {"an empty file; ''", "only a comment; '# nothing yet'", "blank lines; '\n\n'"})
    void anEmptyScenarioSaysSo(String what, String yaml) throws Exception {
        Run r = run(scenario(yaml.replace("\\n", "\n")).toString(), "--out", dir.resolve("bad").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("the scenario is empty");
    }

    @Test
    void aGrantedNodeTakesTheScenariosReadyDelayBeforeItsJobStartsAndBillingBegins() throws Exception {
        Path out = dir.resolve("ready");
        Run r = run(scenario(SMALL.replace("tick: 10s", "tick: 10s\nnodeReadyAfter: 2m")).toString(),
                "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        List<String[]> jobs = Files.readAllLines(out.resolve("jobs.csv")).stream().skip(1)
                .map(l -> l.split(",", -1)).toList();
        assertThat(jobs).filteredOn(j -> j[0].equals("a1")).extracting(j -> j[8]).containsExactly("2m");
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        // acme's 4 nodes bill from 2m, not from the grant at 0s
        double acme = Double.parseDouble(summary.at("/revenueByTenantUsd/acme").asText());
        assertThat(acme).isLessThan(32 * 2.00 * (151 + 84) / 60.0);
    }

    /**
     * A cluster whose base load block is one node of 8 GPUs. Four-GPU jobs a and b seat at once and run
     * an hour; c (low, at 5m) and d (high, at 10m) wait. When a ends at 1h, d seats first (priority
     * class before age), and c when b ends.
     */
    @Test
    void subNodeJobsRunOnTheBaseLoadBlockAndFreeItsGpusForTheNextByPriorityThenAge() throws Exception {
        String yaml = """
                duration: 4h
                tick: 10s
                pools:
                  - pool: lab/h100-8x
                    nodes: 0
                tenants:
                  - id: acme
                    credits: "100"
                    clusters:
                      - id: acme-c
                        block:
                          pool: lab/h100-8x
                          nodes: 1
                jobs:
                  - {id: a, at: 0s, cluster: acme-c, pool: lab/h100-8x, gpus: 4, duration: 1h}
                  - {id: b, at: 0s, cluster: acme-c, pool: lab/h100-8x, gpus: 4, duration: 90m}
                  - {id: c, at: 5m, cluster: acme-c, pool: lab/h100-8x, gpus: 4, duration: 1h, priority: low}
                  - {id: d, at: 10m, cluster: acme-c, pool: lab/h100-8x, gpus: 4, duration: 1h, priority: high}
                """;
        Path out = dir.resolve("block");
        Run r = run(scenario(yaml).toString(), "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        List<String[]> jobs = Files.readAllLines(out.resolve("jobs.csv")).stream().skip(1)
                .map(l -> l.split(",", -1)).toList();
        // job, first start, completed
        assertThat(jobs).extracting(j -> j[0] + " " + j[8] + " " + j[11]).containsExactly(
                "a 0s 1h", "b 0s 1h30m", "c 1h30m 2h30m", "d 1h 2h");
    }

    @Test
    void helpAndUsageErrors() {
        Run help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("simulate-market SCENARIO.yaml [--out DIR]");
        assertThat(run().code()).isEqualTo(2);
        assertThat(run("--bogus", "x.yaml").code()).isEqualTo(2);
        Run missing = run(dir.resolve("nope.yaml").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("no scenario file");
    }

    @Test
    void theExampleScenarioRuns() throws Exception {
        Run r = run("classpath:market/example-scenario.yaml", "--out", dir.resolve("example").toString());
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode summary = new ObjectMapper().readTree(dir.resolve("example").resolve("summary.json").toFile());
        assertThat(summary.at("/jobs/started").asInt()).isPositive();
        assertThat(summary.at("/gpuUtilization").asDouble()).isBetween(0.0, 1.0);
        assertThat(Arrays.asList(summary.at("/pools").size())).containsExactly(2);
    }
}
