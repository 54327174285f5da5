// Package mrcgen generates relational data with planted cross-cutting
// clusterings, the slides' friends and co-workers example for multiple
// relational clusterings (package invent): people fall into friend groups,
// which decide their hobbies, and, independently, into teams of co-workers,
// which decide their skills.
package mrcgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Config describes a generated data set.
type Config struct {
	// Friends and Teams are the numbers of friend groups and of teams;
	// PerCell is the number of people in each (friend group, team) pair, so
	// the two clusterings cross-cut.
	Friends, Teams, PerCell int
	// Hobbies and Skills are the numbers of hobby predicates per friend group
	// and of skill predicates per team.
	Hobbies, Skills int
	// Noise is the probability that an atom's truth value is flipped.
	Noise float64
	Seed  uint64
}

// Default is the slides' example: three friend groups and two teams of
// co-workers over twelve people (two per pair), two hobbies per friend group,
// three skills per team, no noise.
var Default = Config{Friends: 3, Teams: 2, PerCell: 2, Hobbies: 2, Skills: 3}

// Data is a generated data set.
type Data struct {
	// MLN declares the predicates: Hobby0(person), ... and Skill0(person), ...
	MLN string
	// DB lists the true atoms (closed world).
	DB string
	// People names the people; Friends and Teams are the planted
	// clusterings, as lists of people's names.
	People         []string
	Friends, Teams [][]string
	// HobbyGroups and SkillGroups list the predicates each friend group
	// and each team makes true.
	HobbyGroups, SkillGroups [][]string
}

// Generate builds a data set.
func Generate(c Config) *Data {
	rng := rand.New(rand.NewPCG(c.Seed, 7))
	d := &Data{Friends: make([][]string, c.Friends), Teams: make([][]string, c.Teams)}
	var mln, db strings.Builder
	fmt.Fprintln(&mln, "// friends and co-workers: friend groups decide hobbies, teams decide skills")
	for g := 0; g < c.Friends; g++ {
		var hs []string
		for h := 0; h < c.Hobbies; h++ {
			name := fmt.Sprintf("Hobby%d", g*c.Hobbies+h)
			hs = append(hs, name)
			fmt.Fprintf(&mln, "%s(person)\n", name)
		}
		d.HobbyGroups = append(d.HobbyGroups, hs)
	}
	for t := 0; t < c.Teams; t++ {
		var ss []string
		for s := 0; s < c.Skills; s++ {
			name := fmt.Sprintf("Skill%d", t*c.Skills+s)
			ss = append(ss, name)
			fmt.Fprintf(&mln, "%s(person)\n", name)
		}
		d.SkillGroups = append(d.SkillGroups, ss)
	}
	// People in a shuffled order, so clusters are not runs of names.
	n := c.Friends * c.Teams * c.PerCell
	order := rng.Perm(n)
	friend := make([]int, n)
	team := make([]int, n)
	for i, o := range order {
		name := fmt.Sprintf("P%02d", i)
		d.People = append(d.People, name)
		friend[i] = o % c.Friends
		team[i] = (o / c.Friends) % c.Teams
		d.Friends[friend[i]] = append(d.Friends[friend[i]], name)
		d.Teams[team[i]] = append(d.Teams[team[i]], name)
	}
	emit := func(pred, person string, v bool) {
		if c.Noise > 0 && rng.Float64() < c.Noise {
			v = !v
		}
		if v {
			fmt.Fprintf(&db, "%s(%s)\n", pred, person)
		}
	}
	for i, p := range d.People {
		for g, hs := range d.HobbyGroups {
			for _, h := range hs {
				emit(h, p, g == friend[i])
			}
		}
		for t, ss := range d.SkillGroups {
			for _, s := range ss {
				emit(s, p, t == team[i])
			}
		}
	}
	d.MLN = mln.String()
	d.DB = db.String()
	return d
}
