import Lanes
