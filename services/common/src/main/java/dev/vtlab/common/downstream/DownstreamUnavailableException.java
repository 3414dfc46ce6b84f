package dev.vtlab.common.downstream;

/** The downstream service could not be reached or gave an unusable answer (mapped to 502). */
public class DownstreamUnavailableException extends RuntimeException {

    public DownstreamUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
