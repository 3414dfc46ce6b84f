package dev.vtlab.app.system;

import dev.vtlab.app.system.LabSettings.ConnMode;

/**
 * CONN_MODE as the service runs it now: CONN_MODE's value at start, switched by the rig between the steps of one
 * JVM's staircase ({@link ConnModeEndpoint}). Rows that differ only in it then share a warm JVM instead of each
 * paying a JVM's start and its JIT's warm-up; the rig reads the mode back from runtime-info before each such step.
 * Each request reads it once, so a request runs wholly in one mode.
 */
public class LiveConnMode {

    private volatile ConnMode current;

    public LiveConnMode(ConnMode initial) {
        this.current = initial;
    }

    public ConnMode current() {
        return current;
    }

    void switchTo(ConnMode mode) {
        this.current = mode;
    }
}
