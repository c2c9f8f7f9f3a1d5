package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One simulated cluster's objects as plain JSON maps, read and written through its CRUD mock's own
 * handlers — so every change the simulated controllers make reaches watchers (informers) as a real
 * controller's would. Remembers whether anything changed, so the caller saves once per round.
 */
final class ClusterStore {
    private final KubernetesCrudDispatcher crud;
    private final KubernetesSerialization json;
    private boolean changed;

    ClusterStore(KubernetesCrudDispatcher crud, KubernetesSerialization json) {
        this.crud = crud;
        this.json = json;
    }

    /** The object at that path, or null when there is none. */
    Map<String, Object> get(String path) {
        MockResponse r = crud.handleGet(path);
        return r.code() == 200 ? parse(r) : null;
    }

    /** The items of a collection (empty when the collection is unknown). */
    List<Map<String, Object>> list(String collection) {
        MockResponse r = crud.handleGet(collection);
        if (r.code() != 200) {
            return List.of();
        }
        List<Map<String, Object>> items = new ArrayList<>();
        Object raw = parse(r).get("items");
        if (raw instanceof List<?> list) {
            for (Object item : list) {
                items.add(Obj.map(item));
            }
        }
        return items;
    }

    /** Creates an object in a collection; the created object, or null when it exists already. */
    Map<String, Object> create(String collection, Map<String, Object> object) {
        MockResponse r = crud.handleCreate(request(HttpMethod.POST, collection, object));
        if (r.code() == 409) {
            return null;
        }
        check(r, "create in " + collection);
        changed = true;
        return parse(r);
    }

    /**
     * Replaces an object, then its status when the main path left the status out (a status subresource):
     * what a controller does with update and updateStatus. The stored object, or null on a conflict.
     */
    Map<String, Object> replace(String path, Map<String, Object> object) {
        MockResponse r = crud.handleUpdate(request(HttpMethod.PUT, path, object));
        if (r.code() == 409 || r.code() == 404) {
            return null;
        }
        check(r, "update " + path);
        changed = true;
        Map<String, Object> stored = parse(r);
        if (object.get("status") != null && !Objects.equals(object.get("status"), stored.get("status"))) {
            Map<String, Object> withStatus = Obj.copy(stored);
            withStatus.put("status", object.get("status"));
            MockResponse s = crud.handleUpdate(request(HttpMethod.PUT, path + "/status", withStatus));
            if (s.code() < 300) {
                stored = parse(s);
            }
        }
        return stored;
    }

    /** Replaces an object's status through its status subresource; the stored object, or null on a conflict. */
    Map<String, Object> replaceStatus(String path, Map<String, Object> object) {
        MockResponse r = crud.handleUpdate(request(HttpMethod.PUT, path + "/status", object));
        if (r.code() == 409 || r.code() == 404) {
            return null;
        }
        check(r, "update the status of " + path);
        changed = true;
        return parse(r);
    }

    /** Deletes an object; true if it was there. */
    boolean delete(String path) {
        MockResponse r = crud.handleDelete(path);
        if (r.code() < 300) {
            changed = true;
            return true;
        }
        return false;
    }

    /** Whether anything changed since the last call. */
    boolean takeChanged() {
        boolean was = changed;
        changed = false;
        return was;
    }

    String asJson(Object value) {
        return json.asJson(value);
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> parse(String text) {
        return json.unmarshal(text, Map.class);
    }

    /** The object a response carries; empty when it carries none (the mock answers an update that completed a deletion so). */
    private Map<String, Object> parse(MockResponse r) {
        if (r.getBody() == null) {
            return new java.util.LinkedHashMap<>();
        }
        return parse(new String(r.getBody().getBytes(), StandardCharsets.UTF_8));
    }

    private RecordedRequest request(HttpMethod method, String path, Map<String, Object> body) {
        return new RecordedRequest("HTTP/1.1", method, path, new Headers.Builder().add("Content-Type", "application/json").build(),
                new Buffer(json.asJson(body).getBytes(StandardCharsets.UTF_8)));
    }

    private static void check(MockResponse r, String what) {
        if (r.code() >= 300) {
            throw new IllegalStateException("the CRUD mock refused to " + what + ": " + r.code() + " "
                    + new String(r.getBody().getBytes(), StandardCharsets.UTF_8));
        }
    }
}
