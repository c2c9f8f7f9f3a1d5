package com.bettercompute.domain.volume;

import com.bettercompute.domain.ErrorCode;

import java.util.Map;

/**
 * Whether a person's request to delete a volume is accepted. The delete is irreversible, so it keeps a human in
 * the loop: only a console session may ask (any API token is refused with {@code session-required}, whatever its
 * scope), the person types the volume's storage name back exactly, and an attached volume is refused (delete its
 * cluster first). A volume whose delete was accepted already is accepted again without change.
 */
public final class VolumeDeletePolicy {
    public static final String SESSION_REQUIRED = "session-required";
    public static final String ATTACHED = "volume-attached";
    public static final String CONFIRMATION_MISMATCH = "confirmation-mismatch";

    private VolumeDeletePolicy() {}

    /** The answer, as a value. */
    public sealed interface Decision {
        /** Accept: the volume goes {@code deleting} now and billing stops. */
        record Accept() implements Decision {}

        /** Accepted before: answer with the volume as it is. */
        record AlreadyAccepted() implements Decision {}

        /** Refused, with the API's code, the spec's reason word and a sentence for the person. */
        record Refuse(ErrorCode code, String reason, String message, Map<String, Object> details) implements Decision {}
    }

    /** Before the volume is even looked up: a call made with an API token never deletes. */
    public static Decision caller(boolean viaSession) {
        if (viaSession) {
            return new Decision.Accept();
        }
        return new Decision.Refuse(ErrorCode.ACCESS_DENIED, SESSION_REQUIRED,
                "Deleting a volume destroys its data and cannot be undone: it is a console action only, confirmed by a person. "
                        + "API tokens may list volumes, never delete them, whatever their scope.",
                Map.of("reason", SESSION_REQUIRED));
    }

    /** @param typed what the person typed back (null: nothing) */
    public static Decision decide(SharedVolume v, boolean viaSession, String typed) {
        Decision caller = caller(viaSession);
        if (caller instanceof Decision.Refuse) {
            return caller;
        }
        switch (v.state()) {
            case DELETED, FAILED:
                return new Decision.Refuse(ErrorCode.NOT_FOUND, "not-found", "Volume " + v.label() + " does not exist.",
                        Map.of("volume", v.storageName()));
            case DELETING:
                return new Decision.AlreadyAccepted();
            case PENDING, ATTACHED:
                return new Decision.Refuse(ErrorCode.INVALID_STATE, ATTACHED, "Volume " + v.label() + " is attached to cluster "
                        + v.clusterName() + " and cannot be deleted. Delete the cluster first: the volume is preserved with it, "
                        + "then delete it here.", Map.of("reason", ATTACHED, "cluster", v.clusterName(), "volume", v.storageName()));
            default:
                break;
        }
        if (typed == null || !typed.equals(v.storageName())) {
            return new Decision.Refuse(ErrorCode.INVALID_INPUT, CONFIRMATION_MISMATCH, "To delete volume " + v.label()
                    + ", type its storage name " + v.storageName() + " exactly.",
                    Map.of("reason", CONFIRMATION_MISMATCH, "field", "confirm", "volume", v.storageName()));
        }
        return new Decision.Accept();
    }
}
