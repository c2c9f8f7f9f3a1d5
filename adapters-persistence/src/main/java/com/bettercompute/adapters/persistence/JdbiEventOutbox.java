package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;
import com.fasterxml.jackson.core.type.TypeReference;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link EventOutbox} on the {@code events} table; the sequence is its identity column, the data JSON
 * text. A rolled-back append leaves a gap in the sequence, never a row. Appends lock one row until their
 * transaction ends, so sequence order is commit order and a reader never skips an event.
 */
public final class JdbiEventOutbox implements EventOutbox {
    private static final TypeReference<Map<String, Object>> DATA = new TypeReference<>() {};
    /** The columns an append writes, each with its PostgreSQL type (for held writes' arrays). */
    private static final List<String> COLUMNS_TYPED = List.of("event_type varchar", "tenant_id varchar", "subject_id varchar",
            "occurred_at timestamptz", "data_json varchar");
    /** Held until commit: appends of concurrent transactions commit in sequence order (V2 migration). */
    private static final String LOCK = "SELECT id FROM outbox_writer WHERE id = 1 FOR UPDATE";

    private final Db db;

    public JdbiEventOutbox(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public void append(DomainEvent event) {
        append(event, Json.write(event.data()));
    }

    /** {@link #append} of an event whose data's JSON text is {@code data}. */
    private void append(DomainEvent event, String data) {
        db.call("ordering event appends", h -> h.createQuery(LOCK).mapTo(Integer.class).one());
        db.call("appending an event", h -> h.createUpdate(
                        "INSERT INTO events (event_type, tenant_id, subject_id, occurred_at, data_json)"
                                + " VALUES (:event_type, :tenant_id, :subject_id, :occurred_at, :data_json)")
                .bind("event_type", event.type()).bind("tenant_id", event.tenantId())
                .bind("subject_id", event.subjectId()).bind("occurred_at", event.occurredAt())
                .bind("data_json", data).execute());
    }

    /**
     * One lock and one JDBC batch for all the events; when {@link JdbiTransactions#writesTogether} holds them, the
     * lock and one INSERT of the events' columns as arrays are sent with the other held writes, after them.
     */
    @Override
    public void appendAll(List<DomainEvent> events) {
        appendAll(events, events.stream().map(e -> Json.write(e.data())).toList());
    }

    /** An event with its data's JSON text, made ahead by {@link #prepare}. */
    private record JsonEvent(DomainEvent event, String json) implements PreparedEvent {}

    /** The data's JSON text made in the caller's thread: a group's leader, which writes one group at a time, sends it. */
    @Override
    public PreparedEvent prepare(DomainEvent event) {
        return new JsonEvent(event, Json.write(event.data()));
    }

    @Override
    public void appendAllPrepared(List<? extends PreparedEvent> events) {
        appendAll(events.stream().map(PreparedEvent::event).toList(),
                events.stream().map(e -> e instanceof JsonEvent made ? made.json() : Json.write(e.event().data())).toList());
    }

    /** {@link #appendAll} of the events whose data's JSON texts are {@code data}, in the same order. */
    private void appendAll(List<DomainEvent> events, List<String> data) {
        if (events.size() <= 1) {
            for (int i = 0; i < events.size(); i++) {
                append(events.get(i), data.get(i));
            }
            return;
        }
        Db.Together held = Db.together();
        if (held != null) {
            List<Object> rows = new ArrayList<>();
            for (int i = 0; i < events.size(); i++) {
                DomainEvent event = events.get(i);
                rows.addAll(java.util.Arrays.asList(event.type(), event.tenantId(), event.subjectId(), event.occurredAt(),
                        data.get(i)));
            }
            held.add(LOCK, List.of(), null);
            // one row after the other, in the order given: the sequence numbers follow it
            held.addRows("events", COLUMNS_TYPED, rows, "", null);
            return;
        }
        db.call("ordering event appends", h -> h.createQuery(LOCK).mapTo(Integer.class).one());
        db.call("appending events", h -> {
            PreparedBatch rows = h.prepareBatch("INSERT INTO events (event_type, tenant_id, subject_id, occurred_at, data_json)"
                    + " VALUES (:event_type, :tenant_id, :subject_id, :occurred_at, :data_json)");
            for (int i = 0; i < events.size(); i++) {
                DomainEvent event = events.get(i);
                rows.bind("event_type", event.type()).bind("tenant_id", event.tenantId())
                        .bind("subject_id", event.subjectId()).bind("occurred_at", event.occurredAt())
                        .bind("data_json", data.get(i)).add();
            }
            return rows.execute();
        });
    }

    @Override
    public List<StoredEvent> read(long after, int limit, String tenantId) {
        if (limit <= 0) {
            return List.of();
        }
        String sql = "SELECT seq, event_type, tenant_id, subject_id, occurred_at, data_json FROM events WHERE seq > :after"
                + (tenantId == null ? "" : " AND tenant_id = :tenant_id") + " ORDER BY seq LIMIT :limit";
        return db.call("reading events", h -> {
            var query = h.createQuery(sql).bind("after", after).bind("limit", limit);
            if (tenantId != null) {
                query.bind("tenant_id", tenantId);
            }
            return query.map((rs, ctx) -> new StoredEvent(rs.getLong("seq"), new DomainEvent(
                            rs.getString("event_type"), rs.getString("tenant_id"), rs.getString("subject_id"),
                            Times.instant(rs, "occurred_at"), Json.read(rs.getString("data_json"), DATA))))
                    .list();
        });
    }
}
