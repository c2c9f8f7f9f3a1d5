package com.bettercompute.adapters.k8s.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@code kubectl logs} reads of a simulated pod ({@code GET pods/<name>/log}): the simulated kubelet runs
 * no process, so a container's log is what the kubelet did with it — where and when it started, the market's
 * notice, its termination, its exit. The refusals are kube-apiserver's: a pod with several containers and none
 * named, a container the pod does not have, a container not started yet.
 */
final class PodLogs {
    private PodLogs() {}

    /** The log as text, or the refusal: {@code code} 400 with its message. */
    record Answer(int code, String text) {}

    static Answer of(Map<String, Object> pod, String container) {
        String name = Obj.name(pod);
        List<String> containers = new ArrayList<>();
        Obj.list(Obj.at(pod, "spec", "containers")).forEach(c -> containers.add(String.valueOf(Obj.map(c).get("name"))));
        if (container == null && containers.size() != 1) {
            return new Answer(400, "a container name must be specified for pod " + name + ", choose one of: "
                    + "[" + String.join(" ", containers) + "]");
        }
        String shown = container == null ? containers.get(0) : container;
        if (!containers.contains(shown)) {
            return new Answer(400, "container " + shown + " is not valid for pod " + name);
        }
        String phase = Obj.str(pod, "status", "phase");
        String started = Obj.str(pod, "status", "startTime");
        if (started == null || "Pending".equals(phase)) {
            boolean gated = SimulatedPods.gated(pod);
            return new Answer(400, "container \"" + shown + "\" in pod \"" + name + "\" is waiting to start: "
                    + (gated ? "SchedulingGated" : "ContainerCreating"));
        }
        StringBuilder log = new StringBuilder();
        log.append(started).append(" simulated container ").append(shown).append(" (image ").append(image(pod, shown))
                .append(") started on node ").append(Obj.str(pod, "spec", "nodeName"))
                .append("; the simulated kubelet runs no process: these lines are all it logs\n");
        Object preemptAt = Obj.annotations(pod).get("marketplace.nationalcompute.com/preempt-at");
        if (preemptAt != null) {
            log.append("the market reclaims this pod's node: preempt-at ").append(preemptAt).append("\n");
        }
        String deletion = Obj.str(pod, "metadata", "deletionTimestamp");
        if (deletion != null) {
            log.append("SIGTERM: terminating, to be gone by ").append(deletion).append("\n");
        }
        if ("Succeeded".equals(phase)) {
            log.append("exited with code 0\n");
        } else if ("Failed".equals(phase)) {
            log.append("exited with a failure\n");
        }
        return new Answer(200, log.toString());
    }

    private static String image(Map<String, Object> pod, String container) {
        for (Object c : Obj.list(Obj.at(pod, "spec", "containers"))) {
            if (container.equals(Obj.map(c).get("name"))) {
                return String.valueOf(Obj.map(c).get("image"));
            }
        }
        return "";
    }
}
