package com.bettercompute.bootstrap;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.Context;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.spi.AppenderAttachable;
import org.slf4j.LoggerFactory;

import java.util.Iterator;

/**
 * {@code --log-format}: {@code text} (the default, logback.xml's pattern) or {@code json} (logback's own
 * {@link JsonEncoder}, {@link #jsonEncoder}); and the end of logging when the server stops ({@link #flush}).
 */
final class LogFormat {
    /** The logger of the access line of every request (written by ApiServer, queued by logback.xml's ACCESS). */
    static final String ACCESS = "better-compute.access";

    private LogFormat() {}

    /** Checks the option's value; an unknown one stops the start. */
    static String parse(String value) {
        if (!value.equals("text") && !value.equals("json")) {
            throw new IllegalArgumentException("option --log-format must be text or json");
        }
        return value;
    }

    /** Switches the console output of the root and the access logger to the format, before the server logs anything. */
    static void apply(String format) {
        if (!format.equals("json") || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        for (Logger logger : new Logger[] {context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME), context.getLogger(ACCESS)}) {
            toJson(logger.iteratorForAppenders(), context);
        }
    }

    private static void toJson(Iterator<Appender<ILoggingEvent>> appenders, LoggerContext context) {
        while (appenders.hasNext()) {
            Appender<ILoggingEvent> appender = appenders.next();
            if (appender instanceof OutputStreamAppender<ILoggingEvent> console) {
                JsonEncoder encoder = jsonEncoder(context);
                console.stop();
                console.setEncoder(encoder);
                console.start();
            } else if (appender instanceof AppenderAttachable<?> wrapper) {
                // the access line's queue: the console behind it
                @SuppressWarnings("unchecked")
                AppenderAttachable<ILoggingEvent> queue = (AppenderAttachable<ILoggingEvent>) wrapper;
                toJson(queue.iteratorForAppenders(), context);
            }
        }
    }

    /**
     * One JSON object a line: {@code timestamp} (epoch milliseconds), {@code level}, {@code threadName},
     * {@code loggerName}, {@code mdc} (the request id, tenant and cluster when the line has them),
     * {@code formattedMessage} (the text the text format prints, so neither carries more than the other) and
     * {@code throwable} when there is one. Left out: the message's pattern and arguments apart (the formatted
     * message has them), the logger context's properties and the sequence numbers.
     */
    static JsonEncoder jsonEncoder(Context context) {
        JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(context);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithContext(false);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithFormattedMessage(true);
        encoder.start();
        return encoder;
    }

    /** Writes out the lines still queued and stops logging: the last thing a stopping server does. */
    static void flush() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }
}
