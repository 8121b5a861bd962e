// Setup file of the HTTP tests: the capabilities' background work is registered in the test
// process too, as in every entry point of the service (lib/capabilities), so that fixtures
// written with the services queue what they cause. Not of the unit tests: none writes through the
// services, and importing every capability cost each of their files ~1.7 s (127 s of a 264 s run).
import { registerCapabilities } from "@/lib/capabilities";

registerCapabilities();
