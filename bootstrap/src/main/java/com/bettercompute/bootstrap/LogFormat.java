package com.bettercompute.bootstrap;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import org.slf4j.LoggerFactory;

import java.util.Iterator;

/** {@code --log-format}: {@code text} (the default, logback.xml's pattern) or {@code json} ({@link JsonLogEncoder}). */
final class LogFormat {
    private LogFormat() {}

    /** Checks the option's value; an unknown one stops the start. */
    static String parse(String value) {
        if (!value.equals("text") && !value.equals("json")) {
            throw new IllegalArgumentException("option --log-format must be text or json");
        }
        return value;
    }

    /** Switches the root logger's console output to the format, before the server logs anything. */
    static void apply(String format) {
        if (!format.equals("json") || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
            if (it.next() instanceof OutputStreamAppender<ILoggingEvent> console) {
                JsonLogEncoder encoder = new JsonLogEncoder();
                encoder.setContext(context);
                encoder.start();
                console.stop();
                console.setEncoder(encoder);
                console.start();
            }
        }
    }
}
