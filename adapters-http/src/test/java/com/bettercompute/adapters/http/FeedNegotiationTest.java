package com.bettercompute.adapters.http;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Which answer of the feed a caller's {@code Accept} asks for: the JSON page, or server-sent events. */
class FeedNegotiationTest {
    @ParameterizedTest(name = "Accept: {0} -> stream {1}")
    @CsvSource(delimiter = '|', nullValues = "none", value = {
            "none                                          | false",
            "application/json                              | false",
            "*/*                                           | false",
            "text/event-stream                             | true",
            "TEXT/Event-Stream; charset=utf-8              | true",
            // a generated client sends every type the document lists, JSON first: it gets the page that ends
            "application/json, text/event-stream           | false",
            "text/event-stream, application/json           | true",
            "application/json;q=0.5, text/event-stream     | true",
            "text/event-stream;q=0.2, application/json     | false",
            "text/event-stream;q=0, */*                    | false",
            "text/*, text/event-stream;q=0.9               | true",
    })
    void the_feed_streams_only_to_a_caller_that_prefers_events_to_json(String accept, boolean stream) {
        assertThat(Router.prefersStream(accept)).isEqualTo(stream);
    }
}
