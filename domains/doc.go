// Package domains is the registry of domains a run can name: a built-in
// one by name, or a pack folder, loaded and compiled into a domain.Domain
// (package domain holds the type, so the stages that take one need not
// depend on this registry or on any built-in). It imports no stage: the
// generator, the customer, the agent and the engines are built from
// Domain.Model by the packages that use them.
//
// Built-in domains are packs in the format users write, each a package
// under domains/ that embeds its folder and names itself
// (domains/retail, domains/airline). Go handler sets, which packs name as
// handlers: builtin:NAME, come from the packages that implement them
// (tau2.HandlerSets). Load takes a built-in name or a folder holding
// domain.yaml; every pack is loaded with PackOptions, so a release's
// domain/ folder loads from anywhere with the handlers it names.
// OfRelease finds the domain a finished release was made on.
package domains
