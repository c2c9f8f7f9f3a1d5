package com.bettercompute.domain.volume;

import com.bettercompute.domain.event.DomainEvent;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What happened to a shared volume. Each record carries the volume as saved with the event; {@link #type()} is the
 * wire name and {@link #stored()} the outbox's form (one shape for every volume event).
 */
public sealed interface VolumeEvent {
    SharedVolume volume();

    Instant occurredAt();

    String type();

    /** The provider made it. */
    record VolumeCreated(SharedVolume volume, Instant occurredAt) implements VolumeEvent {
        public String type() {
            return "kubernetes.volume.created";
        }
    }

    /** Its cluster runs with it: every node mounts it at its path. */
    record VolumeAttached(SharedVolume volume, Instant occurredAt) implements VolumeEvent {
        public String type() {
            return "kubernetes.volume.attached";
        }
    }

    /** Its cluster is gone and it was kept. */
    record VolumePreserved(SharedVolume volume, Instant occurredAt) implements VolumeEvent {
        public String type() {
            return "kubernetes.volume.preserved";
        }
    }

    /** A delete was accepted: billing stopped. */
    record VolumeDeleting(SharedVolume volume, Instant occurredAt) implements VolumeEvent {
        public String type() {
            return "kubernetes.volume.deleting";
        }
    }

    /** Gone at the provider, with every file on it. */
    record VolumeDeleted(SharedVolume volume, Instant occurredAt) implements VolumeEvent {
        public String type() {
            return "kubernetes.volume.deleted";
        }
    }

    /** It could not be made; nothing of it is left at the provider. */
    record VolumeFailed(SharedVolume volume, Instant occurredAt) implements VolumeEvent {
        public String type() {
            return "kubernetes.volume.error";
        }
    }

    default DomainEvent stored() {
        SharedVolume v = volume();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("volumeId", v.id());
        data.put("label", v.label());
        data.put("storageName", v.storageName());
        data.put("clusterId", v.clusterId());
        data.put("state", v.state().wire());
        data.put("sizeGiB", v.sizeGiB());
        data.put("path", v.path());
        if (v.message() != null) {
            data.put("message", v.message());
        }
        return new DomainEvent(type(), v.tenantId(), v.id(), occurredAt(), data);
    }
}
