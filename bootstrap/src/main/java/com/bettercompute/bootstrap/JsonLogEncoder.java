package com.bettercompute.bootstrap;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code --log-format json}: one JSON object a line, {@code {"time", "level", "logger", "thread", "message",
 * "requestId", "tenantId", "clusterId", "exception"}}, the three ids when the line has them in its logging
 * context (MDC), the exception with its stack as one string. The message is the formatted one: the same
 * text the text format prints, so neither carries more than the other.
 */
public final class JsonLogEncoder extends EncoderBase<ILoggingEvent> {
    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] NOTHING = new byte[0];

    @Override
    public byte[] headerBytes() {
        return NOTHING;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("time", Instant.ofEpochMilli(event.getTimeStamp()).toString());
            json.writeStringField("level", event.getLevel().toString());
            json.writeStringField("logger", event.getLoggerName());
            json.writeStringField("thread", event.getThreadName());
            json.writeStringField("message", event.getFormattedMessage());
            Map<String, String> mdc = event.getMDCPropertyMap();
            if (mdc != null) {
                for (Map.Entry<String, String> e : new TreeMap<>(mdc).entrySet()) {
                    json.writeStringField(e.getKey(), e.getValue());
                }
            }
            IThrowableProxy thrown = event.getThrowableProxy();
            if (thrown != null) {
                json.writeStringField("exception", ThrowableProxyUtil.asString(thrown));
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    @Override
    public byte[] footerBytes() {
        return NOTHING;
    }
}
