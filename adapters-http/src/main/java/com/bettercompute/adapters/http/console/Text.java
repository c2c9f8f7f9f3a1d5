package com.bettercompute.adapters.http.console;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Text the templates show as is, without JavaScript; public because the precompiled templates call it. */
public final class Text {
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    private Text() {}

    /** An RFC 3339 instant as people read it in UTC; the page's script rewrites it in the viewer's zone. */
    public static String utc(String rfc3339) {
        return UTC.format(Instant.parse(rfc3339));
    }
}
