package catalog

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/tools"
)

func TestSplitAsks(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"What's the weather in Paris?", []string{"What's the weather in Paris?"}},
		{"Find the sum of the multiples of 3 and 5 below 1000. Also find the product of the first five primes.",
			[]string{"Find the sum of the multiples of 3 and 5 below 1000.", "Also find the product of the first five primes."}},
		{"Book a flight to Rome and then reserve a hotel near the Colosseum, also rent a car",
			[]string{"Book a flight to Rome", "and then reserve a hotel near the Colosseum,", "also rent a car"}},
		{"- check my calendar\n- email Bob\n2. order pizza", []string{"check my calendar", "email Bob", "order pizza"}},
		{"Please (1) convert 10 USD to EUR (2) translate hello into French",
			[]string{"Please", "(1) convert 10 USD to EUR", "(2) translate hello into French"}},
		// Not asks: a point's coordinates, an abbreviation, a lower case
		// word after a full stop, a question inside a quote.
		{"Distance between A(3, 4) and B(1, 2).", []string{"Distance between A(3, 4) and B(1, 2)."}},
		{"Weather in St. Louis, e.g. tomorrow.", []string{"Weather in St. Louis, e.g. tomorrow."}},
		{"A house of 3000 sq ft. in New York", []string{"A house of 3000 sq ft. in New York"}},
		{"Translate Hello, how are you? from English to French", []string{"Translate Hello, how are you? from English to French"}},
		{"Go to the U.S. Embassy site", []string{"Go to the U.S. Embassy site"}},
		// A number ends a sentence.
		{"Book a flight on May 3. Then find a hotel.", []string{"Book a flight on May 3.", "Then find a hotel."}},
		{"Use a threshold of 0.5. Finally, plot it.", []string{"Use a threshold of 0.5.", "Finally, plot it."}},
	} {
		if diff := cmp.Diff(tc.want, splitAsks(tc.in)); diff != "" {
			t.Errorf("splitAsks(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestEachExample(t *testing.T) {
	for _, tc := range []struct {
		in            string
		plain, sample string
	}{
		{"City name (e.g. Paris, Lyon)", "City name ", "(e.g. Paris, Lyon)"},
		{"The city and state, e.g. San Diego, CA", "The city and state, ", "e.g. San Diego, CA"},
		{"Area of expertise. For example, 'Marriage', 'Criminal'. Required.", "Area of expertise. . Required.", "For example, 'Marriage', 'Criminal'"},
		{"A file format such as PDF; or none", "A file format ; or none", "such as PDF"},
		{"Plain text with an example of nothing", "Plain text with an example of nothing", ""},
		{"(e.g. 3", "", "(e.g. 3"},
	} {
		var plain, sample strings.Builder
		eachExample(tc.in, func(part string, example bool) {
			if example {
				sample.WriteString(part)
			} else {
				plain.WriteString(part)
			}
		})
		if plain.String() != tc.plain || sample.String() != tc.sample {
			t.Errorf("eachExample(%q) = %q and examples %q, want %q and %q", tc.in, plain.String(), sample.String(), tc.plain, tc.sample)
		}
	}
}

func TestEachQuoted(t *testing.T) {
	for in, want := range map[string][]string{
		`reviews of "The Weather Man" please`:  {"reviews of ", `"The Weather Man"`, " please"},
		`the book “Cloud Atlas” by Mitchell`:   {"the book ", `"Cloud Atlas"`, " by Mitchell"},
		`what's the 'Solar Beam' move's power`: {"what's the ", `"Solar Beam"`, " move's power"},
		`an unclosed "quote`:                   {`an unclosed "quote`},
	} {
		var got []string
		eachQuoted(in, func(part string, quoted bool) {
			if quoted {
				part = `"` + part + `"`
			}
			if part != "" {
				got = append(got, part)
			}
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("eachQuoted(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func rankNames(t *testing.T, ts []*tools.Tool, query string, max int) ([]string, []Ranked) {
	t.Helper()
	got, err := New(ts).Select(context.Background(), Selection{Query: query, Max: max, Cap: true, MinScore: DefaultMinScore})
	if err != nil {
		t.Fatal(err)
	}
	return names(got), got
}

func tool(name, desc, props string) *tools.Tool {
	return &tools.Tool{Name: name, Description: desc, Safe: true, InputSchema: []byte(`{"type":"object","properties":{` + props + `}}`)}
}

// A request of several asks: each ask's best tool is in the top N, though
// one ask's words are rarer than the others'.
func TestRankAsks(t *testing.T) {
	ts := []*tools.Tool{
		tool("get_user_profile", "Retrieve a user's profile.", `"user_id":{"type":"string"}`),
		tool("list_user_orders", "List the orders a user placed.", `"user_id":{"type":"string"}`),
		tool("geocode_address", "Latitude and longitude of a street address.", `"address":{"type":"string"}`),
		tool("exoplanet_habitability", "Estimate the habitability of an exoplanet from its orbit and star.", `"planet":{"type":"string"}`),
		tool("exoplanet_catalog", "Search the exoplanet catalog by star.", `"star":{"type":"string"}`),
		tool("send_sms", "Send a text message.", `"to":{"type":"string"},"text":{"type":"string"}`),
	}
	query := "First get the profile of user 42. Then work out whether the exoplanet Kepler-22b around its star is habitable. Also text my brother that dinner is at eight."
	got, ranked := rankNames(t, ts, query, 3)
	want := []string{"get_user_profile", "exoplanet_habitability", "send_sms"}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("top 3 (-want +got):\n%s%s", diff, describe(ranked))
	}
	for _, r := range ranked {
		if !strings.HasPrefix(r.Reason, "for ask ") {
			t.Errorf("%s: reason %q does not say which ask", r.Tool.Name, r.Reason)
		}
	}
	// One ask ranks as the whole request: no ask in the reason.
	_, ranked = rankNames(t, ts, "the profile of user 42", 1)
	if len(ranked) != 1 || ranked[0].Tool.Name != "get_user_profile" || strings.HasPrefix(ranked[0].Reason, "for ask") {
		t.Errorf("one ask: %s", describe(ranked))
	}
}

// Words requests are phrased with do not decide, even in a tool's name.
func TestRankFiller(t *testing.T) {
	ts := []*tools.Tool{
		tool("help_center_search", "Search the help center for articles.", `"query":{"type":"string"}`),
		tool("provide_feedback", "Provide feedback about the service.", `"text":{"type":"string"}`),
		tool("account_balance", "The balance of a bank account.", `"account":{"type":"string"}`),
	}
	got, ranked := rankNames(t, ts, "I need you to help me and provide the information on my account balance", 3)
	if len(got) == 0 || got[0] != "account_balance" {
		t.Errorf("got %v, want account_balance first%s", got, describe(ranked))
	}
	if !strings.Contains(ranked[0].Reason, "weak: request phrasing") && len(ranked) > 1 && !strings.Contains(ranked[1].Reason, "weak: request phrasing") {
		t.Errorf("no reason marks filler as weak:%s", describe(ranked))
	}
	// "information" and "details" say what a tool gives back: they
	// are words of the request like any other.
	q := newQuery("Please provide the details and information of employee 42")
	for word, want := range map[string]float64{"provide": fillerWeight, "details": 1, "information": 1} {
		if i := q.find(stem(word)); i < 0 || q.weight[i] != want {
			t.Errorf("%s: weight %v, want %v", word, q.weight[max(i, 0)], want)
		}
	}
}

// Example values in a description or a property's "examples" match
// weakly, and their numbers not at all.
func TestRankExamples(t *testing.T) {
	ts := []*tools.Tool{
		tool("recipe_search", "Find recipes by ingredient.", `"ingredient":{"type":"string","description":"An ingredient (e.g. chicken, tofu, eggs)"}`),
		tool("poultry_census", "How many birds farms raise, by species and country.", `"species":{"type":"string","description":"Bird species","examples":["chicken","duck"]},"country":{"type":"string"}`),
		tool("top_books", "The best-selling books of a year.", `"year":{"type":"integer","description":"The year, e.g. 2023"}`),
		tool("sales_report_2023", "Sales figures of the 2023 fiscal year.", `"region":{"type":"string"}`),
	}
	if got, r := rankNames(t, ts, "How many chicken do farms raise in France?", 2); len(got) == 0 || got[0] != "poultry_census" {
		t.Errorf("chicken: got %v, want poultry_census first%s", got, describe(r))
	}
	if got, r := rankNames(t, ts, "chicken", 2); len(got) == 0 || !strings.Contains(r[0].Reason, "example") {
		t.Errorf("chicken alone: %v, want a match in example values%s", got, describe(r))
	}
	_, r := rankNames(t, ts, "sales in 2023", 4)
	for _, k := range r {
		if k.Tool.Name == "top_books" {
			t.Errorf("2023 matched the example year of top_books:%s", describe(r))
		}
	}
}

// Word forms meet: nutritional and nutrition, charities and charity.
func TestRankStems(t *testing.T) {
	ts := []*tools.Tool{
		tool("nutrition_facts", "Nutrition facts of a food.", `"food":{"type":"string"}`),
		tool("charity_search", "Search registered charities by city.", `"city":{"type":"string"}`),
		tool("weather_now", "Current weather of a city.", `"city":{"type":"string"}`),
	}
	if got, r := rankNames(t, ts, "nutritional value of an apple", 1); !slices.Equal(got, []string{"nutrition_facts"}) {
		t.Errorf("got %v%s", got, describe(r))
	}
	if got, r := rankNames(t, ts, "which charity helps in Boston", 1); !slices.Equal(got, []string{"charity_search"}) {
		t.Errorf("got %v%s", got, describe(r))
	}
}

// Words inside quotes, a title, weigh little.
func TestRankQuoted(t *testing.T) {
	ts := []*tools.Tool{
		tool("get_weather", "Current weather for a city.", `"city":{"type":"string"}`),
		tool("movie_reviews", "Critics' reviews of a movie.", `"title":{"type":"string"}`),
	}
	if got, r := rankNames(t, ts, `Find reviews of the movie "The Weather Man"`, 2); len(got) == 0 || got[0] != "movie_reviews" {
		t.Errorf("got %v, want movie_reviews first%s", got, describe(r))
	} else if !strings.Contains(r[len(r)-1].Reason, "weak: quoted") && len(r) > 1 {
		t.Errorf("quoted word not marked weak:%s", describe(r))
	}
}

// Two asks that want the same tool are one need said twice: the tool is
// offered once, and the second ask does not spend a place on its runner-up
// ahead of the next ask's tool.
func TestRankAsksShareATool(t *testing.T) {
	ts := []*tools.Tool{
		tool("find_hotel", "Find a hotel in a city, with a swimming pool or a gym.", `"city":{"type":"string"}`),
		tool("swimming_pools", "Public swimming pools in a city.", `"city":{"type":"string"}`),
		tool("send_sms", "Send an SMS to a phone.", `"to":{"type":"string"},"text":{"type":"string"}`),
		tool("get_weather", "Current weather for a city.", `"city":{"type":"string"}`),
	}
	query := "Find a hotel in Rome. I want a hotel with a swimming pool. Then text Bob where we stay."
	got, ranked := rankNames(t, ts, query, 2)
	slices.Sort(got)
	if want := []string{"find_hotel", "send_sms"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v%s", got, want, describe(ranked))
	}
}

// A first sentence that asks for help says what the asks after it are
// about; it is not an ask of its own that would spend a place.
func TestRankHelpOpener(t *testing.T) {
	q := newQuery("Can you help me with my trip to Lisbon? Book a flight from London on May 3. Then find a hotel near the beach.")
	if len(q.asks) != 2 {
		t.Fatalf("%d asks, want 2: the opener joins the first", len(q.asks))
	}
	if i := q.find("trip"); i < 0 || !slices.Contains(q.asks[0].terms, i) {
		t.Errorf("trip is not in the first ask")
	}
	ts := []*tools.Tool{
		tool("plan_trip", "Plan a trip: an itinerary of places to visit in a city.", `"city":{"type":"string"}`),
		tool("book_flight", "Book a flight between two airports.", `"from":{"type":"string"},"to":{"type":"string"},"date":{"type":"string"}`),
		tool("find_hotel", "Find a hotel near a place.", `"near":{"type":"string"}`),
		tool("send_email", "Send an email.", `"to":{"type":"string"}`),
	}
	got, ranked := rankNames(t, ts, "Can you help me with my trip to Lisbon? Book a flight from London on May 3. Then find a hotel near the beach.", 2)
	slices.Sort(got)
	if want := []string{"book_flight", "find_hotel"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v%s", got, want, describe(ranked))
	}
	// An opener that is the whole request is still an ask.
	if q := newQuery("Can you help me plan a trip to Lisbon?"); len(q.asks) != 1 || q.find("trip") < 0 {
		t.Errorf("one opener: %d asks", len(q.asks))
	}
}

// A request that names what it wants back finds the tool whose output
// schema has it, though no other field says so.
func TestRankOutput(t *testing.T) {
	facts := tool("country_facts", "Facts about a country.", `"country":{"type":"string"}`)
	facts.OutputSchema = []byte(`{"type":"object","properties":{"population":{"type":"integer"},"capital":{"type":"string","description":"The capital city"}}}`)
	ts := []*tools.Tool{
		tool("country_flag", "The flag of a country, as an image.", `"country":{"type":"string"}`),
		facts,
		tool("city_weather", "Current weather in a city.", `"city":{"type":"string"}`),
	}
	got, ranked := rankNames(t, ts, "What is the population of France?", 1)
	if len(got) != 1 || got[0] != "country_facts" || !strings.Contains(ranked[0].Reason, "population (output)") {
		t.Errorf("got%s, want country_facts, matched in its output", describe(ranked))
	}
	// --explain says so, with the field's weight.
	es, err := New(ts).Explain(context.Background(), Selection{Query: "What is the population of France?", Max: 1, Cap: true, MinScore: DefaultMinScore})
	if err != nil || len(es) == 0 || es[0].Tool != facts || len(es[0].Matched) != 1 {
		t.Fatalf("explained %v, %v", es, err)
	}
	if f := es[0].Matched[0].Fields; len(f) != 1 || f[0].Field != "output" || f[0].Weight != 0.5 {
		t.Errorf("population matched in %+v, want the output at weight 0.5", f)
	}
}
