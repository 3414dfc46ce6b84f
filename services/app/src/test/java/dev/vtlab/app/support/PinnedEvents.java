package dev.vtlab.app.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** Records jdk.VirtualThreadPinned in this JVM, with the rig's threshold, while an action runs. */
public final class PinnedEvents {

    /** The threshold the rig's load/pinning.jfc uses. */
    public static final Duration THRESHOLD = Duration.ofMillis(20);

    private PinnedEvents() {
    }

    /** The pinnedReason of every event recorded while {@code action} ran. */
    public static List<String> during(Runnable action) throws IOException {
        Path file = Files.createTempFile("vtlab-pinning", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(THRESHOLD).withStackTrace();
            recording.start();
            action.run();
            recording.stop();
            recording.dump(file);
            return RecordingFile.readAllEvents(file).stream()
                    .filter(event -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
                    .map(PinnedEvents::reason)
                    .toList();
        }
        finally {
            Files.deleteIfExists(file);
        }
    }

    private static String reason(RecordedEvent event) {
        return event.hasField("pinnedReason") ? String.valueOf(event.getString("pinnedReason")) : "unknown";
    }
}
