package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.MarketEvent;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The JSON text columns. Only values the adapter builds itself go in (lists and maps of strings, taints,
 * event data of plain JDK values); an {@link Instant} or {@link Duration} in event data is written as its
 * ISO-8601 string and so reads back as a string. Decimal numbers read back as {@code BigDecimal}.
 */
final class Json {
    private static final Logger LOG = LoggerFactory.getLogger(Json.class);
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new SimpleModule("java-time-as-text")
                    .addSerializer(Instant.class, new InstantSerializer())
                    .addDeserializer(Instant.class, new InstantDeserializer())
                    .addSerializer(Duration.class, ToStringSerializer.instance))
            // the market's events between ticks are stored as JSON: each names its record
            .addMixIn(MarketEvent.class, MarketEventTyping.class)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {}

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            LOG.error("cannot write a {} as JSON", value == null ? "null" : value.getClass().getName(), e);
            throw new DomainException(ErrorCode.INTERNAL, "A value could not be stored.");
        }
    }

    /** Writes as {@code type} says, so a list of a sealed interface's records names each record. */
    static <T> String write(T value, TypeReference<T> type) {
        try {
            return MAPPER.writerFor(type).writeValueAsString(value);
        } catch (JsonProcessingException e) {
            LOG.error("cannot write a {} as JSON", type.getType(), e);
            throw new DomainException(ErrorCode.INTERNAL, "A value could not be stored.");
        }
    }

    static <T> T read(String json, TypeReference<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            LOG.error("a stored JSON column does not read as {}", type.getType(), e);
            throw new DomainException(ErrorCode.INTERNAL, "A stored value could not be read.");
        }
    }

    /** Records and lists of records of the market (its owed replacements, a lost grant, events). */
    static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            LOG.error("a stored JSON column does not read as {}", type.getName(), e);
            throw new DomainException(ErrorCode.INTERNAL, "A stored value could not be read.");
        }
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME, property = "type")
    @JsonSubTypes({
            @JsonSubTypes.Type(MarketEvent.ReasonChanged.class), @JsonSubTypes.Type(MarketEvent.NodeGranted.class),
            @JsonSubTypes.Type(MarketEvent.GangProvisioned.class), @JsonSubTypes.Type(MarketEvent.PreemptionNoticed.class),
            @JsonSubTypes.Type(MarketEvent.GangReclaimedAtOnce.class),
            @JsonSubTypes.Type(MarketEvent.ReclaimRescinded.class), @JsonSubTypes.Type(MarketEvent.GangRevoked.class),
            @JsonSubTypes.Type(MarketEvent.NodeReleased.class), @JsonSubTypes.Type(MarketEvent.BlockSeated.class),
            @JsonSubTypes.Type(MarketEvent.RequestFiled.class)})
    private interface MarketEventTyping {
    }

    private static final class InstantDeserializer extends StdDeserializer<Instant> {
        InstantDeserializer() {
            super(Instant.class);
        }

        @Override
        public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return Instant.parse(p.getValueAsString());
        }
    }

    /** Micro-second precision, like the timestamp columns, so an instant reads the same everywhere. */
    private static final class InstantSerializer extends StdSerializer<Instant> {
        InstantSerializer() {
            super(Instant.class);
        }

        @Override
        public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(value.truncatedTo(ChronoUnit.MICROS).toString());
        }
    }
}
