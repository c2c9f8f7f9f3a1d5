package com.bettercompute.bootstrap;

public final class Main {
    public static void main(String[] args) {
    }
}
