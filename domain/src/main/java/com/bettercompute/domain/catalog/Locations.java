package com.bettercompute.domain.catalog;

/** GKE's location names: a zone is its region and a one-letter suffix ({@code us-central1-a}). */
public final class Locations {
    private Locations() {}

    public static boolean isZone(String location) {
        int dash = location.lastIndexOf('-');
        return dash > 0 && dash == location.length() - 2 && Character.isLetter(location.charAt(location.length() - 1))
                && location.indexOf('-') < dash;
    }

    public static String regionOfZone(String zone) {
        return isZone(zone) ? zone.substring(0, zone.lastIndexOf('-')) : zone;
    }
}
