package com.bettercompute.adapters.k8s.simulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The two forms of one Event, as kube-apiserver serves them from one store: core {@code v1}
 * ({@code involvedObject}, {@code message}, {@code source}, {@code firstTimestamp}, {@code lastTimestamp},
 * {@code count}) and {@code events.k8s.io/v1} ({@code regarding}, {@code note}, {@code deprecatedSource},
 * {@code deprecated…} times and count). Events are stored in the core form; the other is a view of it.
 */
final class EventForms {
    private EventForms() {}

    static final String GROUP_VERSION = "events.k8s.io/v1";
    private static final Pattern PATH = Pattern.compile("^/apis/events\\.k8s\\.io/v1(/namespaces/[^/]+)?/events(/[^/]+)?/?$");

    /** The core path of an {@code events.k8s.io/v1} path, or null when it is not one. */
    static String corePath(String path) {
        Matcher m = PATH.matcher(path);
        if (!m.matches()) {
            return null;
        }
        return "/api/v1" + (m.group(1) == null ? "" : m.group(1)) + "/events" + (m.group(2) == null ? "" : m.group(2));
    }

    /** Field names that differ between the forms: core, then {@code events.k8s.io/v1}. */
    private static final List<String[]> RENAMED = List.of(
            new String[] {"involvedObject", "regarding"},
            new String[] {"message", "note"},
            new String[] {"reportingComponent", "reportingController"},
            new String[] {"source", "deprecatedSource"},
            new String[] {"firstTimestamp", "deprecatedFirstTimestamp"},
            new String[] {"lastTimestamp", "deprecatedLastTimestamp"},
            new String[] {"count", "deprecatedCount"});

    /** An Event (or EventList) in the {@code events.k8s.io/v1} form, from the core one. */
    static Map<String, Object> toEventsApi(Map<String, Object> core) {
        if ("EventList".equals(core.get("kind"))) {
            Map<String, Object> list = new LinkedHashMap<>(core);
            list.put("apiVersion", GROUP_VERSION);
            list.put("items", Obj.list(core.get("items")).stream().map(i -> (Object) toEventsApi(Obj.map(i))).toList());
            return list;
        }
        return rename(core, 0, 1, GROUP_VERSION);
    }

    /** An Event in the core form, from the {@code events.k8s.io/v1} one. */
    static Map<String, Object> toCore(Map<String, Object> event) {
        return rename(event, 1, 0, "v1");
    }

    private static Map<String, Object> rename(Map<String, Object> event, int from, int to, String apiVersion) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : event.entrySet()) {
            String name = e.getKey();
            for (String[] pair : RENAMED) {
                if (pair[from].equals(e.getKey())) {
                    name = pair[to];
                }
            }
            out.put(name, e.getValue());
        }
        out.put("apiVersion", apiVersion);
        out.put("kind", "Event");
        return out;
    }
}
