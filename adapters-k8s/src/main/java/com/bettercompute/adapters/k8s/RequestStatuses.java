package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.port.MarketClusterClient.RequestStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A ProvisioningRequest's status with the market's conditions and class details merged in. */
final class RequestStatuses {
    private RequestStatuses() {
    }

    /**
     * Sets each wanted condition by type (keeping the transition time of one whose status did not change)
     * and merges the class details into the request's status.
     *
     * @return whether anything changed
     */
    static boolean merge(GenericKubernetesResource request, RequestStatus wanted) {
        Map<String, Object> status = new LinkedHashMap<>(Fabric8DemandWatch.map(request.getAdditionalProperties().get("status")));
        List<Object> conditions = new ArrayList<>(Fabric8DemandWatch.list(status.get("conditions")));
        boolean changed = false;
        for (Condition c : wanted.conditions()) {
            int at = indexOf(conditions, c.type());
            Map<String, Object> had = at < 0 ? Map.of() : Fabric8DemandWatch.map(conditions.get(at));
            if (c.status().equals(had.get("status")) && c.reason().equals(had.get("reason"))
                    && Objects.equals(c.message(), had.get("message"))) {
                continue;
            }
            Map<String, Object> next = new LinkedHashMap<>();
            next.put("type", c.type());
            next.put("status", c.status());
            next.put("reason", c.reason());
            next.put("message", c.message());
            next.put("lastTransitionTime", c.status().equals(had.get("status")) && had.get("lastTransitionTime") != null
                    ? had.get("lastTransitionTime") : c.lastTransition().toString());
            if (request.getMetadata().getGeneration() != null) {
                next.put("observedGeneration", request.getMetadata().getGeneration());
            }
            if (at < 0) {
                conditions.add(next);
            } else {
                conditions.set(at, next);
            }
            changed = true;
        }
        Map<String, Object> details = new LinkedHashMap<>(Fabric8DemandWatch.map(status.get("provisioningClassDetails")));
        for (Map.Entry<String, String> d : wanted.classDetails().entrySet()) {
            if (!d.getValue().equals(details.get(d.getKey()))) {
                details.put(d.getKey(), d.getValue());
                changed = true;
            }
        }
        if (changed) {
            status.put("conditions", conditions);
            if (!details.isEmpty()) {
                status.put("provisioningClassDetails", details);
            }
            request.setAdditionalProperty("status", status);
        }
        return changed;
    }

    private static int indexOf(List<Object> conditions, String type) {
        for (int i = 0; i < conditions.size(); i++) {
            if (type.equals(Fabric8DemandWatch.map(conditions.get(i)).get("type"))) {
                return i;
            }
        }
        return -1;
    }
}
