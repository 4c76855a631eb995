package embed

// The word lists below are general English and developer vocabulary written
// from common knowledge (frequency lists, a thesaurus, WordNet-style
// categories), not drawn from any evaluation set. They are parsed once into
// the lexicon table in lexicon.go. Changing them changes the vector space, so
// any change must bump builtinModel's version.

// stopWordList holds function words: determiners, pronouns, auxiliaries,
// prepositions and conjunctions. They carry grammar rather than topic, so
// they keep only a small weight.
const stopWordList = `
a an the this that these those there here some any each every all both either
i me my mine myself we us our ours ourselves you your yours yourself
yourselves he him his himself she her hers herself it its itself they them
their theirs themselves one ones something anyone anybody
anything everyone everybody everything whoever whatever whichever
who whom whose which what when where why how
be am is are was were been being have has had having do does did doing done
will would shall should can could may might must ought
of in on at by for with about against between into through during before
after above below to from up down out off over under again further then once
onto upon within without along across among around behind beside besides
beneath near toward towards via per than as like unlike
and or but if because so yet while although though unless until whether
also just very too quite rather really only even still already almost
s t d ll m re ve o y etc e g ie eg
`

// negationList holds words that negate a clause. People judge "a man is
// not cooking" only moderately related to "a man is cooking" (about 3 on
// SICK's 1-5 scale, where paraphrases get 4.5 or more), so a negation is a
// feature of its own with a large weight, not a function word to ignore.
const negationList = `
no not never neither nor none nothing nobody noone nowhere
`

// commonWordList ranks frequent English content words, most frequent first,
// roughly following published corpus frequency lists. A word's rank stands
// in for its document frequency: the more common a word, the less it says
// about what a text is about (an IDF-like weight without a corpus).
const commonWordList = `
say get make go know take see come think look want give use find tell ask
work seem feel try leave call good new first last long great little own other
old right big high different small large next early young important few
public bad same able time year people way day man thing woman life child
world school state family student group country problem hand part place case
week company system program question government number night point home
water room mother area money story fact month lot study book eye job word
business issue side kind head house service friend father power hour game
line end member law car city community name president team minute idea kid
body information back parent face others level office door health person art
war history party result change morning reason research girl guy moment air
teacher force education need become put mean keep let begin help talk turn
start show hear play run move like live believe hold bring happen write
provide sit stand lose pay meet include continue set learn lead understand
watch follow stop create speak read allow add spend grow open walk win offer
remember love consider appear buy wait serve die send expect build stay
fall cut reach kill remain suggest raise pass sell require report decide pull
well way now then more most here today much many always often sometimes
real best sure low late hard major better strong possible whole free true
full special easy clear recent certain personal short single current wrong
private past common poor natural similar hot dead central happy serious ready
simple left general dark various entire close final main nice huge popular
color colour white black red blue green front top bottom outside inside
thing things stuff way ways lot lots kind sort type part piece bit
`

// irregularList maps irregular inflections that suffix stripping cannot
// reach to their base form, one "form base" pair per entry.
const irregularList = `
men man women woman children child people person feet foot teeth tooth
mice mouse geese goose oxen ox wives wife knives knife leaves leaf lives life
wolves wolf halves half shelves shelf loaves loaf calves calf thieves thief
ran run sat sit stood stand went go gone go came come ate eat eaten eat
rode ride ridden ride swam swim swum swim threw throw thrown throw drove drive
driven drive wrote write written write took take taken take gave give
given give fell fall fallen fall flew fly flown fly caught catch bought buy
brought bring thought think held hold made make built build sang sing
sung sing began begin begun begin broke break broken break chose choose
chosen choose drew draw drawn draw drank drink drunk drink fought fight
found find got get gotten get grew grow grown grow hung hang kept keep
knew know known know led lead lost lose met meet paid pay said say seen see
sent send shot shoot shook shake shaken shake slept sleep slid slide
spoke speak spoken speak spent spend spun spin stole steal stolen steal
struck strike swept sweep swung swing taught teach told tell tore tear
torn tear understood understand woke wake woken wake wore wear worn wear
won win dug dig fed feed felt feel fled flee hid hide hidden hide blew blow
blown blow bent bend sank sink sunk sink stuck stick knelt kneel leapt leap
crept creep dealt deal meant mean sold sell bit bite bitten bite forgot forget
forgotten forget froze freeze frozen freeze rang ring rung ring rose rise
risen rise shone shine sprang spring sprung spring stung sting strove strive
wove weave woven weave wrung wring hurt hurt spat spit lent lend lit light
sought seek wept weep
better good best good worse bad worst bad
`

// synonymList merges words that mean the same thing, including common
// abbreviations and spelling variants, into one canonical word: each line is
// "canonical: variant variant ...". Only near-exact synonyms belong here;
// related but distinct words share a concept instead (conceptList).
const synonymList = `
child: kid kiddo youngster
person: someone somebody
man: guy gentleman fellow dude
woman: lady
boy: lad
mother: mom mum mommy mama
father: dad daddy papa
baby: infant newborn
picture: photo photograph pic
television: tv
phone: telephone cellphone smartphone
bicycle: bike
motorcycle: motorbike
airplane: plane aeroplane aircraft
car: automobile auto
sofa: couch
big: large
small: little tiny
fast: quick rapid speedy
start: begin commence
shout: yell holler
speak: talk
ocean: sea
stone: pebble
grey: gray
colour: color
cook: chef
doctor: physician
street: road
puppy: pup
store: shop
trousers: pants
database: db
connection: conn
authentication: auth authn
authorization: authz
repository: repo
configuration: config cfg conf
environment: env
directory: dir folder
package: pkg
library: lib
function: func fn
parameter: param
argument: arg
variable: var
message: msg
error: err
request: req
response: resp
context: ctx
implementation: impl
temporary: tmp temp
documentation: doc docs
specification: spec
information: info
application: app
administrator: admin
production: prod
development: dev
dependency: dep deps
kubernetes: k8s
javascript: js
typescript: ts
python: py
image: img
command: cmd
performance: perf
asynchronous: async
source: src
destination: dest dst
certificate: cert
credential: creds
password: pwd passwd passphrase
user: usr
address: addr
number: num
length: len
index: idx
string: str
boolean: bool
character: char
value: val
object: obj
attribute: attr
property: prop
reference: ref
maximum: max
minimum: min
average: avg
utility: util utils
regex: regexp
login: signin logon
logout: signout logoff
memory: mem
`

// conceptList groups related but distinct words under a shared concept, a
// hand-written slice of a WordNet-style hierarchy: each line is
// "concept: word word ...". A word contributes its concepts as extra
// features, so "guitar" and "violin" or "slice" and "chop" share part of
// their vectors without being treated as the same word. A word may belong to
// several concepts. Categories that nearly every description touches
// (people in general, colours, numbers) are left out on purpose: sharing
// them says little about whether two texts are about the same thing.
const conceptList = `
male: man boy father son brother husband uncle grandfather king
female: woman girl mother daughter sister wife aunt grandmother queen
young: child boy girl baby toddler teenager teen youth young puppy kitten
family: family mother father parent son daughter brother sister husband wife baby grandmother grandfather
job: chef cook doctor nurse teacher student police policeman policewoman officer soldier firefighter farmer driver pilot worker waiter waitress clerk
performer: musician singer dancer actor actress artist performer guitarist pianist drummer violinist band
athlete: athlete player runner cyclist biker skier surfer swimmer climber skater boxer wrestler gymnast jockey rider goalkeeper
animal: animal dog cat horse bird fish cow sheep goat pig lion tiger bear elephant monkey deer rabbit mouse rat snake turtle duck chicken hamster squirrel panda kangaroo giraffe zebra camel dolphin whale shark frog lizard insect bug puppy kitten calf pony bull pet parrot owl eagle goose swan pigeon penguin hen rooster lamb ox donkey mule wolf fox sloth otter seal octopus crab ant bee butterfly spider
dog: dog puppy hound terrier poodle retriever collie canine
cat: cat kitten kitty feline
horse: horse pony foal stallion mare donkey mule
bird: bird duck chicken parrot owl eagle goose swan pigeon penguin hen rooster crow seagull
cattle: cow bull calf ox cattle sheep goat lamb pig
vehicle: vehicle car truck bus bicycle motorcycle train boat ship airplane jet helicopter jeep van taxi scooter tractor wagon cart sled skateboard
boat: boat ship canoe kayak raft yacht sailboat ferry
ride: ride drive cycle pedal steer
instrument: instrument guitar piano violin flute drum drums trumpet saxophone cello harp keyboard banjo ukulele harmonica clarinet trombone accordion
music: music song sing singer melody tune band concert musician guitarist pianist drummer instrument guitar piano violin flute drum trumpet
food: food meal bread meat potato onion tomato egg cheese pizza pasta rice noodle vegetable fruit banana carrot lemon garlic pepper mushroom cucumber lettuce cabbage bean corn shrimp sandwich cake cookie salad soup sauce butter flour sugar salt dough pie steak sausage bacon ham tofu apple orange
vegetable: vegetable potato onion tomato carrot garlic pepper mushroom cucumber lettuce cabbage bean corn zucchini broccoli celery spinach eggplant pea
fruit: fruit apple banana orange lemon lime grape strawberry cherry peach pear mango pineapple melon watermelon berry
meat: meat beef pork chicken steak sausage bacon ham lamb fish shrimp
cut: cut slice chop dice carve mince shred grate trim saw peel
cook: cook fry bake boil grill roast stir mix prepare season heat kitchen chef pan pot oven stove recipe
eat: eat drink bite chew swallow sip taste feed dine munch lunch dinner breakfast meal snack hungry
move: walk run jog sprint race hike stroll march dash wander rush hurry trot gallop climb crawl
run: run jog sprint race dash rush hurry
walk: walk stroll hike march wander step stride
jump: jump leap hop bounce dive vault
swim: swim dive float paddle wade splash surf
water: water sea ocean lake river pool pond stream wave beach shore swim wet
sport: sport game match ball football soccer baseball basketball tennis golf hockey volleyball rugby cricket team score goal kick throw catch bat racket net
play: play game toy fun
place: field yard park garden grass lawn meadow forest mountain hill street sidewalk beach desert
nature: tree flower plant grass leaf forest wood bush garden
snow: snow ice ski skate sled snowboard winter cold frozen
building: house home room kitchen building office store restaurant stage school church hall
clothes: clothes clothing shirt hat dress coat jacket shoe pants jeans skirt suit sweater cap helmet glove sock scarf uniform costume boot wear
talk: talk speak say tell chat shout whisper call discuss converse
look: look see watch stare gaze view observe glance peer notice examine
hold: hold carry grab grip lift pick take bring
pose: sit stand lie kneel squat lean rest sleep
sleep: sleep nap rest doze bed
perform: dance perform sing act show stage
smile: smile laugh grin giggle happy joy
sad: cry weep sad tear upset
fight: fight hit punch kick strike attack wrestle box beat slap
write: write draw paint sketch type read book paper pen pencil letter note
clean: clean wash wipe scrub brush rinse shower bath mop sweep soap
size: big small huge giant short tall long
speed: fast slow speed
put: put place set pour add fill load drop
weapon: gun rifle pistol sword knife bow weapon shoot
tool: knife hammer saw drill scissors tool
body: hand arm leg head face hair eye mouth finger foot nose ear
computer: computer laptop keyboard screen monitor tablet software program code phone
database: database sql sqlite postgres postgresql mysql table query schema row column migration transaction
auth: authentication authorization login logout password token credential session oauth jwt permission role
failure: error exception panic crash bug fail failure fault issue problem broken
test: test spec assert mock fixture coverage benchmark
settings: configuration setting option flag environment parameter preference
network: http https request response server client api endpoint url socket tcp port network connection proxy
deploy: deploy release build pipeline docker kubernetes container cluster production
speedup: performance latency cache optimize throughput slow fast
file: file directory path disk filesystem
git: git commit branch merge rebase repository pull push diff checkout
dependency: dependency package module library import version vendor
log: log logging trace debug print output
`
