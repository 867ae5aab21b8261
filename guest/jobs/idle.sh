# idle: boot, report, and stay up.
stay
