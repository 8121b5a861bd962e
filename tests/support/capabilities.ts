// Setup file of every test project: the capabilities' background work is registered in the test
// process too, as in every entry point of the service (lib/capabilities), so that fixtures
// written with the services queue what they cause.
import { registerCapabilities } from "@/lib/capabilities";

registerCapabilities();
