// Package verify decides whether a dialogue becomes training data: schema checks, state replay, required outputs and policy.
package verify
