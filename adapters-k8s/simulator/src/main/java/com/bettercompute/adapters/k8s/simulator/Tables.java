package com.bettercompute.adapters.k8s.simulator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The server-side Table ({@code meta.k8s.io/v1}) that {@code kubectl get} asks for, so it prints the
 * columns a real cluster prints for the kinds a tenant reads here — pods, nodes, jobs, Workloads,
 * ProvisioningRequests — and NAME and AGE for the rest. Each row carries its whole object.
 */
final class Tables {
    private Tables() {}

    private record Column(String name, String type, int priority) {}

    static Map<String, Object> table(String plural, List<Map<String, Object>> items, String resourceVersion, Instant now) {
        List<Column> columns = columns(plural);
        List<Object> definitions = new ArrayList<>();
        for (Column c : columns) {
            definitions.add(Map.of("name", c.name(), "type", c.type(), "format", c.name().equals("Name") ? "name" : "",
                    "description", "", "priority", c.priority()));
        }
        List<Object> rows = new ArrayList<>();
        for (Map<String, Object> item : items) {
            rows.add(Map.of("cells", cells(plural, item, now), "object", item));
        }
        Map<String, Object> table = new LinkedHashMap<>();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/v1");
        table.put("metadata", resourceVersion == null ? Map.of() : Map.of("resourceVersion", resourceVersion));
        table.put("columnDefinitions", definitions);
        table.put("rows", rows);
        return table;
    }

    private static List<Column> columns(String plural) {
        return switch (plural) {
            case "pods" -> List.of(name(), text("Ready"), text("Status"), new Column("Restarts", "integer", 0), age(), new Column("Node", "string", 1));
            case "nodes" -> List.of(name(), text("Status"), text("Roles"), age(), text("Version"));
            case "jobs" -> List.of(name(), text("Status"), text("Completions"), age());
            case "workloads" -> List.of(name(), text("Queue"), text("Reserved in"), text("Admitted"), text("Finished"), age());
            case "provisioningrequests" -> List.of(name(), text("Accepted"), text("Provisioned"), text("Failed"), age());
            // as kube-apiserver prints an Event (either form): the wide columns only with -o wide
            case "events" -> List.of(text("Last Seen"), text("Type"), text("Reason"), text("Object"), new Column("Subobject", "string", 1),
                    new Column("Source", "string", 1), text("Message"), new Column("First Seen", "string", 1),
                    new Column("Count", "integer", 1), new Column("Name", "string", 1));
            default -> List.of(name(), age());
        };
    }

    private static List<Object> cells(String plural, Map<String, Object> o, Instant now) {
        if ("events".equals(plural)) {
            return eventCells(EventForms.GROUP_VERSION.equals(o.get("apiVersion")) ? EventForms.toCore(o) : o, now);
        }
        List<Object> cells = new ArrayList<>();
        cells.add(Obj.name(o));
        switch (plural) {
            case "pods" -> {
                List<Object> containers = Obj.list(Obj.at(o, "spec", "containers"));
                boolean running = "Running".equals(Obj.str(o, "status", "phase"));
                cells.add((running ? containers.size() : 0) + "/" + containers.size());
                // as kubectl prints a pod: Terminating, SchedulingGated while a gate holds it unscheduled, else its phase
                cells.add(Obj.at(o, "metadata", "deletionTimestamp") != null ? "Terminating"
                        : SimulatedPods.gated(o) && Obj.str(o, "spec", "nodeName") == null ? SimulatedPods.SCHEDULING_GATED
                        : String.valueOf(Obj.str(o, "status", "phase")));
                cells.add(0);
                cells.add(age(o, now));
                cells.add(Obj.str(o, "spec", "nodeName") == null ? "<none>" : Obj.str(o, "spec", "nodeName"));
            }
            case "nodes" -> {
                String status = Obj.isTrue(o, "Ready") ? "Ready" : "NotReady";
                if (Boolean.TRUE.equals(Obj.at(o, "spec", "unschedulable"))) {
                    status += ",SchedulingDisabled";
                }
                cells.add(status);
                TreeSet<String> roles = new TreeSet<>();
                Obj.labels(o).keySet().stream().filter(k -> k.startsWith("node-role.kubernetes.io/"))
                        .forEach(k -> roles.add(k.substring("node-role.kubernetes.io/".length())));
                cells.add(roles.isEmpty() ? "<none>" : String.join(",", roles));
                cells.add(age(o, now));
                cells.add(String.valueOf(Obj.str(o, "status", "nodeInfo", "kubeletVersion")));
            }
            case "jobs" -> {
                String status = Obj.isTrue(o, "Complete") ? "Complete" : Obj.isTrue(o, "Failed") ? "Failed"
                        : Boolean.TRUE.equals(Obj.at(o, "spec", "suspend")) ? "Suspended" : "Running";
                cells.add(status);
                long completions = Obj.num(o, Obj.num(o, 1, "spec", "parallelism"), "spec", "completions");
                cells.add(Obj.num(o, 0, "status", "succeeded") + "/" + completions);
                cells.add(age(o, now));
            }
            case "workloads" -> {
                cells.add(String.valueOf(Obj.str(o, "spec", "queueName")));
                String reserved = Obj.str(o, "status", "admission", "clusterQueue");
                cells.add(reserved == null ? "" : reserved);
                cells.add(status(o, "Admitted"));
                cells.add(status(o, "Finished"));
                cells.add(age(o, now));
            }
            case "provisioningrequests" -> {
                cells.add(status(o, "Accepted"));
                cells.add(status(o, "Provisioned"));
                cells.add(status(o, "Failed"));
                cells.add(age(o, now));
            }
            default -> cells.add(age(o, now));
        }
        return cells;
    }

    /** As kube-apiserver's printer: times since the last and first sighting, the object as {@code kind/name}. */
    private static List<Object> eventCells(Map<String, Object> e, Instant now) {
        String eventTime = Obj.str(e, "eventTime");
        String first = since(Obj.instant(Obj.str(e, "firstTimestamp") != null ? Obj.str(e, "firstTimestamp") : eventTime), now);
        String last = Obj.str(e, "lastTimestamp") != null ? since(Obj.instant(Obj.str(e, "lastTimestamp")), now) : first;
        long count = Obj.num(e, 0, "count");
        if (Obj.at(e, "series") != null) {
            last = since(Obj.instant(Obj.str(e, "series", "lastObservedTime")), now);
            count = Obj.num(e, 0, "series", "count");
        } else if (count == 0) {
            count = 1;
        }
        String kind = String.valueOf(Obj.str(e, "involvedObject", "kind")).toLowerCase(java.util.Locale.ROOT);
        String name = Obj.str(e, "involvedObject", "name");
        String source = Obj.str(e, "source", "component") != null ? Obj.str(e, "source", "component")
                : Obj.str(e, "reportingComponent") == null ? "" : Obj.str(e, "reportingComponent");
        String fieldPath = Obj.str(e, "involvedObject", "fieldPath");
        List<Object> cells = new ArrayList<>();
        cells.add(last);
        cells.add(String.valueOf(Obj.str(e, "type")));
        cells.add(String.valueOf(Obj.str(e, "reason")));
        cells.add(name == null || name.isEmpty() ? kind : kind + "/" + name);
        cells.add(fieldPath == null ? "" : fieldPath);
        cells.add(source);
        cells.add(Obj.str(e, "message") == null ? "" : Obj.str(e, "message").strip());
        cells.add(first);
        cells.add(count);
        cells.add(Obj.name(e));
        return cells;
    }

    private static String status(Map<String, Object> o, String type) {
        Map<String, Object> c = Obj.condition(o, type);
        return c == null ? "" : String.valueOf(c.get("status"));
    }

    /** As kubectl writes ages: the largest unit or two ({@code 45s}, {@code 3m12s}, {@code 5h}, {@code 2d}). */
    static String age(Map<String, Object> o, Instant now) {
        return since(Obj.instant(Obj.str(o, "metadata", "creationTimestamp")), now);
    }

    /** The time since {@code created} as kubectl writes it; {@code <unknown>} for none or a future one. */
    static String since(Instant created, Instant now) {
        if (created == null || created.isAfter(now)) {
            return "<unknown>";
        }
        long s = Duration.between(created, now).toSeconds();
        if (s < 120) {
            return s + "s";
        }
        if (s < 600) {
            return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
        }
        if (s < 3 * 3600) {
            return s / 60 + "m";
        }
        if (s < 48 * 3600) {
            return s / 3600 + "h";
        }
        return s / 86400 + "d";
    }

    private static Column name() {
        return new Column("Name", "string", 0);
    }

    private static Column age() {
        return new Column("Age", "string", 0);
    }

    private static Column text(String name) {
        return new Column(name, "string", 0);
    }
}
