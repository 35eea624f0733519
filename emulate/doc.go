// Package emulate is an OpenAI-compatible server that plays synth's roles for tests, dry runs and load tests, answering with the wire behaviour of vLLM, SGLang, llama.cpp, Ollama or OpenAI when given a Flavor.
package emulate
