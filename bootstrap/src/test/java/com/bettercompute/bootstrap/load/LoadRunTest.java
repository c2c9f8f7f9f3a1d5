package com.bettercompute.bootstrap.load;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The load command runs end to end, briefly; what it measures is never asserted, only that it measured. */
class LoadRunTest {
    @Test
    void a_short_run_drives_every_phase_without_a_failure_and_prints_the_table_and_ratios() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = LoadRun.run(new LoadRun.Settings(1, 2, 0), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(code).as(out).isZero();
        assertThat(out).contains("| phase  |", "create/floor: throughput", "get/floor: throughput");
        for (String phase : new String[]{"floor", "create", "get"}) {
            String row = out.lines().filter(l -> l.startsWith("| " + phase + " ")).findFirst().orElseThrow();
            String[] cells = row.split("\\|");
            assertThat(Long.parseLong(cells[2].trim())).as(row).isPositive();
            assertThat(Long.parseLong(cells[6].trim())).as(row).isZero();
        }
        assertThat(out).containsPattern("clusters in the tenant during get: [1-9]");
    }

    @Test
    void options_are_checked() {
        assertThat(LoadRun.Settings.parse(new String[]{"--seconds", "3", "--concurrency", "4"})).isEqualTo(new LoadRun.Settings(3, 4, 3));
        assertThatThrownBy(() -> LoadRun.Settings.parse(new String[]{"--seconds"})).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> LoadRun.Settings.parse(new String[]{"--seconds", "x"})).hasMessageContaining("whole number");
        assertThatThrownBy(() -> LoadRun.Settings.parse(new String[]{"--concurrency", "0"})).hasMessageContaining("--concurrency 1..512");
        assertThatThrownBy(() -> LoadRun.Settings.parse(new String[]{"--rate", "5"})).hasMessageContaining("unknown option");
    }
}
