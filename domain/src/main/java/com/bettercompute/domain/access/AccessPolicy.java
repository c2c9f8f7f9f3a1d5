package com.bettercompute.domain.access;

import java.util.Collection;
import java.util.List;

/**
 * Decides whether a principal may take an action on a resource. Allowed when any of these holds:
 * <ul>
 *   <li>a binding on the resource's tenant whose role allows the action and whose conditions all hold
 *   on the resource's attributes. On a tenant (which has no attributes) a conditional binding counts:
 *   its conditions narrow which clusters it reaches, and those are decided one by one;</li>
 *   <li>a binding on the cluster itself whose role allows the action;</li>
 *   <li>the principal owns the cluster (it created it): an owner may take every action on it.</li>
 * </ul>
 * Anything else is refused. Pure: the caller loads the bindings and the ownership.
 */
public final class AccessPolicy {
    private AccessPolicy() {}

    public static boolean allows(Collection<RoleBinding> bindings, boolean owner, Action action, Resource resource) {
        if (owner && Resource.CLUSTER.equals(resource.type()) && resource.clusterId() != null) {
            return true;
        }
        for (RoleBinding b : bindings) {
            if (!b.role().allows(action)) {
                continue;
            }
            if (b.onCluster()) {
                if (Resource.CLUSTER.equals(resource.type()) && b.clusterId().equals(resource.clusterId())) {
                    return true;
                }
                continue;
            }
            if (!b.tenantId().equals(resource.tenantId())) {
                continue;
            }
            if (Resource.TENANT.equals(resource.type()) || conditionsHold(b, resource)) {
                return true;
            }
        }
        return false;
    }

    static boolean conditionsHold(RoleBinding binding, Resource resource) {
        for (var condition : binding.where().entrySet()) {
            String value = resource.attributes().get(condition.getKey());
            List<String> allowed = condition.getValue();
            if (value == null || !allowed.contains(value)) {
                return false;
            }
        }
        return true;
    }
}
