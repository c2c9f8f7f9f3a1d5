package com.bettercompute.bootstrap;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --log-format json} ({@link LogFormat#jsonEncoder}): one object a line whatever the message and the context
 * hold, the formatted message only, the logging context, the exception.
 */
class LogFormatJsonEncoderTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void one_json_object_a_line_with_the_context_and_the_exception() throws Exception {
        LoggerContext context = new LoggerContext();
        String awkward = "a \"quote\", a back\\slash, a tab\t, a new\nline, a carriage\rreturn, a bell\u0007, ünïcödé ☃";
        LoggingEvent event = new LoggingEvent("x", context.getLogger("better-compute.access"), Level.WARN,
                "pass of {} failed: {}", new IllegalStateException("boom\n\"x\""), new Object[]{"kcl_1", awkward});
        event.setMDCPropertyMap(Map.of("requestId", "r-1", "tenantId", "acme", "clusterId", awkward));
        JsonEncoder encoder = LogFormat.jsonEncoder(context);

        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

        assertThat(line).endsWith("\n");
        assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n").doesNotContain("\r");
        JsonNode json = JSON.readTree(line);
        assertThat(json.get("level").asText()).isEqualTo("WARN");
        assertThat(json.get("loggerName").asText()).isEqualTo("better-compute.access");
        assertThat(json.get("formattedMessage").asText()).isEqualTo("pass of kcl_1 failed: " + awkward);
        assertThat(json.get("mdc").get("requestId").asText()).isEqualTo("r-1");
        assertThat(json.get("mdc").get("tenantId").asText()).isEqualTo("acme");
        assertThat(json.get("mdc").get("clusterId").asText()).isEqualTo(awkward);
        assertThat(json.get("throwable").get("className").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(json.get("throwable").get("message").asText()).isEqualTo("boom\n\"x\"");
        assertThat(json.get("timestamp").asLong()).isEqualTo(event.getTimeStamp());
    }

    @Test
    void the_message_is_written_once_formatted_never_its_arguments_apart() throws Exception {
        LoggerContext context = new LoggerContext();
        LoggingEvent event = new LoggingEvent("x", context.getLogger("x"), Level.INFO, "minted for {}",
                null, new Object[]{"kcl_2"});
        event.setMDCPropertyMap(Map.of());
        JsonEncoder encoder = LogFormat.jsonEncoder(context);

        JsonNode json = JSON.readTree(new String(encoder.encode(event), StandardCharsets.UTF_8));

        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).contains("timestamp", "level", "threadName", "loggerName", "formattedMessage")
                .doesNotContain("message", "arguments", "context", "sequenceNumber", "nanoseconds");
        assertThat(json.get("formattedMessage").asText()).isEqualTo("minted for kcl_2");
    }
}
