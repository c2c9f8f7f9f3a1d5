package com.bettercompute.bootstrap;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --log-format json}: one object a line, the formatted message, the logging context, the exception. */
class JsonLogEncoderTest {

    @Test
    void one_json_object_a_line_with_the_context_and_the_exception() throws Exception {
        LoggerContext context = new LoggerContext();
        LoggingEvent event = new LoggingEvent("x", context.getLogger("better-compute.access"), Level.WARN,
                "pass of {} failed:\n\"quoted\"", new IllegalStateException("boom"), new Object[]{"kcl_1"});
        event.setMDCPropertyMap(Map.of("requestId", "r-1", "tenantId", "acme", "clusterId", "kcl_1"));
        JsonLogEncoder encoder = new JsonLogEncoder();
        encoder.setContext(context);
        encoder.start();

        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

        assertThat(line).endsWith("\n");
        assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n");
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.get("level").asText()).isEqualTo("WARN");
        assertThat(json.get("logger").asText()).isEqualTo("better-compute.access");
        assertThat(json.get("message").asText()).isEqualTo("pass of kcl_1 failed:\n\"quoted\"");
        assertThat(json.get("requestId").asText()).isEqualTo("r-1");
        assertThat(json.get("tenantId").asText()).isEqualTo("acme");
        assertThat(json.get("clusterId").asText()).isEqualTo("kcl_1");
        assertThat(json.get("exception").asText()).startsWith("java.lang.IllegalStateException: boom");
        assertThat(json.get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    }
}
